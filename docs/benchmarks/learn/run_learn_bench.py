#!/usr/bin/env python3
"""`warpwatch learn` on UCR data sets, judged on their TEST series (docs/benchmarks/learn/README.md).

For each data set: a library learnt from TRAIN only (the positive class against TRAIN's other
class as negatives), then the learnt pattern run over the TEST series laid end to end as one
stream with `warpwatch search --library` (the learnt YAML as it is). An event
counts for the TEST series holding most of its span; F1 is over TEST series (series of the
positive class with an event against series of the other class with one). Then the timing
case: 100 examples of 150 samples and 10^6 samples of background, under /usr/bin/time.

usage: run_learn_bench.py BUILD_DIR [DATA_DIR] [--out FOLDER] [--template dba] [--skip-timing]
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

import yaml

SETS = [  # name, positive label, negative label, what the positive class is
    ("GunPoint", "1", "2", "gun"),
    ("ECG200", "-1", "1", "abnormal"),
]


def read_ucr(path):
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields:
                rows.append((float(fields[0]), [float(v) for v in fields[1:]]))
    return rows


def run(cmd, **kw):
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return r, time.monotonic() - start


def learn_library(build, folder, stem, args, template):
    """`warpwatch learn` into folder/stem.yaml: its stderr, seconds, and the library."""
    os.makedirs(folder, exist_ok=True)
    lib = f"{folder}/{stem}.yaml"
    learn, seconds = run([f"{build}/bin/warpwatch", "learn"] + args +
                         ["--template", template, "--out", lib])
    with open(lib) as f:
        return learn, seconds, lib, yaml.safe_load(f)["libraries"][0]


def test_stream(data, out, name):
    """The TEST series end to end as one stream (a sample per line): rows, the file, and the
    series each sample belongs to."""
    rows = read_ucr(f"{data}/{name}_TEST.tsv")
    os.makedirs(f"{out}/{name}", exist_ok=True)
    stream = f"{out}/{name}/test_stream.csv"
    with open(stream, "w") as f:
        for _, values in rows:
            f.writelines(f"{v!r}\n" for v in values)
    owner = [k for k, (_, values) in enumerate(rows) for _ in values]
    return rows, stream, owner


def judge(events, rows, owner, pos):
    """F1 over TEST series: an event counts for the series holding most of its span."""
    flagged = set()
    for e in events:
        span = owner[e["start_index"]:e["end_index"] + 1]
        flagged.add(max(set(span), key=span.count))
    positive = {k for k, (label, _) in enumerate(rows) if label == float(pos)}
    tp, fp = len(flagged & positive), len(flagged - positive)
    recall = tp / len(positive)
    precision = tp / (tp + fp) if tp + fp else 1.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return flagged, positive, tp, fp, recall, precision, f1


def patterns_of(library):
    for p in library["patterns"]:
        pattern = dict(library["defaults"])
        pattern.update(p)
        yield pattern


def bench_set(build, data, out, name, pos, neg, what, template):
    train = f"{data}/{name}_TRAIN.tsv"
    folder = f"{out}/{name}"
    learn, seconds, lib, library = learn_library(
        build, folder, what, ["--positives", train, "--label", pos, "--negatives", train,
                              "--negative-label", neg], template)
    pattern = next(patterns_of(library))
    rows, stream, owner = test_stream(data, out, name)
    events = search_events(build, lib, stream)
    flagged, positive, tp, fp, recall, precision, f1 = judge(events, rows, owner, pos)
    print(f"## {name}: '{what}' = label {pos}, TRAIN label {neg} as negatives, template {template}")
    print()
    print("learn printed:")
    print("```")
    print(learn.stderr.rstrip())
    print("```")
    print()
    print("| data set | mode | znorm | measure | threshold | TEST events | series flagged | "
          f"{what} found | false series | recall | precision | F1 | learn s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print(f"| {name} | {pattern['mode']} | {pattern.get('znorm', False)} | "
          f"{measure_text(pattern)} | {float(pattern['threshold']):.6g} | {len(events)} | "
          f"{len(flagged)} | {tp} / {len(positive)} | {fp} / {len(rows) - len(positive)} | "
          f"{recall:.3f} | {precision:.3f} | **{f1:.3f}** | {seconds:.2f} |")
    print()
    return f1


def measure_text(pattern):
    if pattern.get("metric", "dtw") == "lcss":
        return f"lcss epsilon {pattern['epsilon']:.4g} delta {pattern.get('delta', 'none')}"
    return f"dtw band {pattern.get('band', 'none')}"


def search_events(build, lib, stream):
    """The learnt library as it is, through `warpwatch search --library` (its measure, mode,
    parameters, thresholds and `exclusive` flag, as the daemon runs it)."""
    found, _ = run([f"{build}/bin/warpwatch", "search", "--library", lib, "--input", stream,
                    "--layout", "columns", "--backend", "cpu"])
    return [json.loads(line) for line in found.stdout.splitlines() if line.strip()]


def bench_both(build, data, out, name, pos, neg, what, template):
    """Both classes learnt into one exclusive library; the nearest template's events only."""
    train = f"{data}/{name}_TRAIN.tsv"
    folder = f"{out}/{name}_both"
    learn, seconds, lib, library = learn_library(
        build, folder, name.lower(), ["--positives", train, "--label", pos, "--label", neg],
        template)
    rows, stream, owner = test_stream(data, out, name)
    events = search_events(build, lib, stream)  # the nearest template's events only
    target = f"{library['name']}.{pos}"  # the positive class's pattern
    _, positive, tp, fp, recall, precision, f1 = judge(
        [e for e in events if e["pattern"] == target], rows, owner, pos)
    _, negative, tp2, fp2, recall2, precision2, f1_2 = judge(
        [e for e in events if e["pattern"] == f"{library['name']}.{neg}"], rows, owner, neg)
    print(f"## {name}, both classes (labels {pos} and {neg}), nearest template "
          f"(`exclusive: true`, through `search --library`)")
    print()
    print("```")
    print(learn.stderr.rstrip())
    print("```")
    print()
    print("| data set | class | events kept | series found | false series | recall | precision | "
          "F1 | learn s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, n, t, f_, r_, p_, f1_ in ((pos, len(positive), tp, fp, recall, precision, f1),
                                        (neg, len(negative), tp2, fp2, recall2, precision2, f1_2)):
        kept = sum(1 for e in events if e["pattern"] == f"{library['name']}.{label}")
        print(f"| {name} | {label} | {kept} | {t} / {n} | {f_} / {len(rows) - n} | {r_:.3f} | "
              f"{p_:.3f} | **{f1_:.3f}** | {seconds:.2f} |")
    print()
    return f1


def timing(build, out, template):
    folder = f"{out}/timing"
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(20261129)
    import math
    with open(f"{folder}/positives.tsv", "w") as f:
        for _ in range(100):
            c = 75 + rng.randint(-10, 10)
            w = 12 + rng.uniform(-2, 2)
            values = [math.exp(-((i - c) / w) ** 2) * 3 + rng.gauss(0, 0.2) for i in range(150)]
            f.write("1\t" + "\t".join(f"{v:.5f}" for v in values) + "\n")
    with open(f"{folder}/background.csv", "w") as f:
        x, values = 0.0, []
        for _ in range(1_000_000):
            x = 0.95 * x + rng.gauss(0, 0.3)
            values.append(f"{x:.4f}")
        f.write(",".join(values) + "\n")
    cmd = ["/usr/bin/time", "-f", "wall %e s, max RSS %M KiB", f"{build}/bin/warpwatch", "learn",
           "--positives", f"{folder}/positives.tsv", "--label", "1", "--negatives",
           f"{folder}/background.csv", "--template", template, "--out", f"{folder}/bumps.yaml"]
    r, seconds = run(cmd)
    print(f"## Timing: 100 examples of 150 samples, 10^6 samples of background, template {template}")
    print()
    print("```")
    print("$ " + " ".join(cmd[3:]))
    print(r.stderr.rstrip())
    print("```")
    print()
    return seconds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("data", nargs="?", default=os.environ.get(
        "WARPWATCH_DATA_DIR", os.path.join(os.path.dirname(__file__), "../../../../shared/data")))
    p.add_argument("--out", default="/tmp/warpwatch_learn_bench")
    p.add_argument("--template", default="dba")
    p.add_argument("--skip-timing", action="store_true")
    a = p.parse_args()
    for name, pos, neg, what in SETS:
        bench_set(a.build, a.data, a.out, name, pos, neg, what, a.template)
        bench_both(a.build, a.data, a.out, name, pos, neg, what, a.template)
    if not a.skip_timing:
        timing(a.build, a.out, a.template)


if __name__ == "__main__":
    main()
