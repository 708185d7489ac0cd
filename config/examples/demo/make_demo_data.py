#!/usr/bin/env python3
"""Writes the demo's data: a 1-D sensor series of 3000 samples (small Gaussian noise)
with three time-warped copies of a pattern planted at samples 500, 1400 and 2300, and
the pattern itself. Deterministic (seed 7); standard library only.

    python3 config/examples/demo/make_demo_data.py   # rewrites series.csv and bump.csv
"""
import math
import pathlib
import random

HERE = pathlib.Path(__file__).parent
rng = random.Random(7)

# Steep, distinct ends so the start and end of an occurrence are unambiguous.
pattern = [3.0, -3.0] + [2.0 * math.sin(2 * math.pi * i / 36) for i in range(2, 38)] + [-3.0, 3.0]


def warp(p, drops, repeats):
    """A time warp: interior samples dropped or repeated, the two ends kept."""
    interior = list(range(2, len(p) - 2))
    rng.shuffle(interior)
    times = [1] * len(p)
    for k in interior[:drops]:
        times[k] = 0
    for k in interior[drops:drops + repeats]:
        times[k] = 2
    return [v for v, t in zip(p, times) for _ in range(t)]


series = [rng.gauss(0.0, 0.05) for _ in range(3000)]
planted = []
for start, (drops, repeats) in zip((500, 1400, 2300), ((6, 0), (0, 10), (3, 5))):
    copy = warp(pattern, drops, repeats)
    for i, v in enumerate(copy):
        series[start + i] = v + rng.gauss(0.0, 0.05)
    planted.append((start, start + len(copy) - 1))

(HERE / "series.csv").write_text(",".join(f"{v:.6g}" for v in series) + "\n")
(HERE / "bump.csv").write_text(",".join(f"{v:.6g}" for v in pattern) + "\n")
# What was planted, for the demo's story (demo.py): first and last sample of each copy.
(HERE / "planted.csv").write_text(
    "start,end\n" + "".join(f"{a},{b}\n" for a, b in planted))
print("planted occurrences (start, end):", planted)
