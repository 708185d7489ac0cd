#!/usr/bin/env python3
"""The demo's story (`make demo`): what was planted in the series, why the threshold is
what it is, then warpwatchd run on config/examples/demo.yaml with each event it publishes
set against the threshold and the planted copy it found. Exits 1 unless the daemon finds
exactly the planted copies. Standard library only.

    python3 config/examples/demo/demo.py --build-dir build
"""
import argparse
import csv
import datetime
import json
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
CONFIG = HERE.parent / "demo.yaml"
ENDPOINT = "tcp://127.0.0.1:5556"  # demo.yaml's publish.endpoint


def planted_copies():
    with open(HERE / "planted.csv", newline="") as f:
        return [(int(r["start"]), int(r["end"])) for r in csv.DictReader(f)]


def search_top(warpwatch, k):
    """The k best non-overlapping matches of the pattern in the series (stream mode)."""
    out = subprocess.run(
        [warpwatch, "search", "--patterns", str(HERE / "bump.csv"), "--input",
         str(HERE / "series.csv"), "--mode", "stream", "--metric", "dtw", "--top", str(k)],
        check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def wall(ns):
    return datetime.datetime.fromtimestamp(ns / 1e9).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.build_dir).resolve() / "bin"
    warpwatch, warpwatchd = str(bin_dir / "warpwatch"), str(bin_dir / "warpwatchd")
    log_path = pathlib.Path(args.build_dir).resolve() / "demo-daemon.log"
    planted = planted_copies()
    threshold = 20.0  # demo.yaml's libraries[0].defaults.threshold

    print("The data: stream sensor-1, 3000 samples 10 ms apart (demo/series.csv): noise")
    print("(sd 0.05) with three time-warped copies of the 40-sample pattern `bump` planted at")
    print("samples " + ", ".join(f"{a}-{b}" for a, b in planted) + " (demo/make_demo_data.py).")
    print()
    best = search_top(warpwatch, len(planted) + 1)
    planted_scores = [e["distance"] for e in best[:len(planted)]]
    other = best[len(planted)]["distance"] if len(best) > len(planted) else float("inf")
    print(f"The threshold, {threshold:g} (dtw, squared cost): `warpwatch search --top "
          f"{len(planted) + 1}` ranks the")
    print(f"best matches: the planted copies score {min(planted_scores):.3f} to "
          f"{max(planted_scores):.3f}, and the best match of")
    print(f"anything else in the series scores {other:.1f}. Any threshold between finds "
          "exactly the")
    print(f"three; {threshold:g} leaves a wide margin on both sides.")
    print()
    print(f"Running: warpwatchd --config {CONFIG} --exit-when-replayed (its log: {log_path})")
    tail = subprocess.Popen([warpwatch, "tail", "--endpoint", ENDPOINT, "--idle-exit-ms", "3000"],
                            stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)  # the subscription is up before the first event
    with open(log_path, "w") as log:
        daemon = subprocess.run([warpwatchd, "--config", str(CONFIG), "--exit-when-replayed"],
                                stdout=log, stderr=subprocess.STDOUT, timeout=120)
    events = [json.loads(line) for line in tail.communicate(timeout=30)[0].splitlines()
              if line.startswith("{")]
    found = set()
    for e in events:
        which = [k for k, (a, b) in enumerate(planted)
                 if e["start_index"] <= b and a <= e["end_index"]]
        what = (f"planted copy {which[0] + 1} ({planted[which[0]][0]}-{planted[which[0]][1]})"
                if which else "not a planted copy")
        found.update(which)
        print(f"  event {e['sequence']}: {e['pattern']} at samples {e['start_index']}-"
              f"{e['end_index']}, {wall(e['start_ns'])}, distance {e['distance']:.3f} <= "
              f"{e['threshold']:g}: {what}")
    extra = sum(1 for e in events if not any(
        e["start_index"] <= b and a <= e["end_index"] for a, b in planted))
    print()
    print(f"{len(found)} of {len(planted)} planted copies found, {extra} other event(s); "
          f"warpwatchd exited {daemon.returncode}.")
    if daemon.returncode != 0:
        print(f"the daemon failed: see {log_path}", file=sys.stderr)
    return 0 if daemon.returncode == 0 and len(found) == len(planted) and extra == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
