#!/usr/bin/env python3
"""Issue 38: matching throughput with and without API traffic, judged against run-to-run noise.

Runs `warpwatch bench e2e` N times without an API client and N times with `--api-poll-hz HZ`,
alternating (without, with, without, ...), each with --json, then prints every run's sustained
samples/s, each side's median and spread (min..max, and (max - min) / median), the difference
of the medians, and whether that settles "within 5%": only when the difference is inside the
bound AND each side's spread is smaller than the bound; otherwise it says the noise is larger.

    python3 docs/benchmarks/api_load/api_load_repeat.py --warpwatch build/bin/warpwatch \\
        --repeat 5 -- --backend cpu --streams 100 --frame 100 --duration-s 10

Everything after `--` goes to every `bench e2e` run. Every run must be ok (reconciled);
a run that is not is reported and fails the script (exit status 1).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(warpwatch, extra, hz, path):
    cmd = [warpwatch, "bench", "e2e", *extra, "--api-poll-hz", str(hz), "--json", path]
    print("$", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    api = [l for l in done.stderr.splitlines() if ": API at " in l]
    with open(path) as f:
        report = json.load(f)
    r = report["runs"][0]
    return {
        "hz": hz,
        "ok": bool(r["ok"]) and done.returncode == 0,
        "sustained": r["throughput"]["sustained_samples_per_s"],
        "found": f'{r["reconciliation"]["found_once"]}/{r["reconciliation"]["planted"]}',
        "api": api[0].split(": API at ", 1)[1] if api else "",
        "date": report["date"],
        "cpu": report["machine"]["cpu"],
        "threads": report["machine"]["hardware_threads"],
    }


def side(runs):
    values = [r["sustained"] for r in runs]
    median = statistics.median(values)
    return median, min(values), max(values), (max(values) - min(values)) / median


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warpwatch", default="build/bin/warpwatch")
    p.add_argument("--repeat", type=int, default=5, help="runs of each side")
    p.add_argument("--hz", type=float, default=10.0, help="the API client's polls a second")
    p.add_argument("--bound", type=float, default=0.05, help="the target: within this fraction")
    p.add_argument("--keep", help="keep the JSON reports in this folder")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="-- then bench e2e options")
    a = p.parse_args()
    extra = a.extra[1:] if a.extra[:1] == ["--"] else a.extra
    folder = a.keep or tempfile.mkdtemp(prefix="warpwatch-api-load-")
    os.makedirs(folder, exist_ok=True)
    runs = []
    for k in range(a.repeat):
        for hz in (0, a.hz):
            path = os.path.join(folder, f"run{k}-hz{hz:g}.json")
            runs.append(run(a.warpwatch, extra, hz, path))
            r = runs[-1]
            print(f'  {"client" if hz else "no client"}: {r["sustained"] / 1e6:.3f}M samples/s, '
                  f'found {r["found"]}, {"ok" if r["ok"] else "NOT OK"} {r["api"]}', flush=True)
    without = [r for r in runs if r["hz"] == 0]
    with_api = [r for r in runs if r["hz"] != 0]
    m0, lo0, hi0, s0 = side(without)
    m1, lo1, hi1, s1 = side(with_api)
    diff = (m1 - m0) / m0
    print(f'\n{runs[0]["date"]}, {runs[0]["cpu"]}, {runs[0]["threads"]} hardware threads; '
          f'bench e2e {" ".join(extra)}; {a.repeat} runs each, alternated')
    print(f"no API client:   median {m0 / 1e6:.3f}M samples/s, min {lo0 / 1e6:.3f}M, "
          f"max {hi0 / 1e6:.3f}M, spread {s0:.1%}")
    print(f"{a.hz:g} Hz client:    median {m1 / 1e6:.3f}M samples/s, min {lo1 / 1e6:.3f}M, "
          f"max {hi1 / 1e6:.3f}M, spread {s1:.1%}")
    print(f"difference of the medians: {diff:+.1%}")
    if max(s0, s1) >= a.bound:
        verdict = (f"not resolved: the spread of the runs ({max(s0, s1):.1%}) is larger than "
                   f"the {a.bound:.0%} bound")
    elif abs(diff) <= a.bound:
        verdict = f"met: within {a.bound:.0%}, and the spread of each side is smaller"
    else:
        verdict = f"NOT met: {diff:+.1%}, beyond the {a.bound:.0%} bound and the noise"
    print(f"within {a.bound:.0%}: {verdict}")
    bad = [r for r in runs if not r["ok"]]
    if bad:
        print(f"{len(bad)} run(s) not ok (not reconciled, or failed): see the JSON in {folder}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
