#!/usr/bin/env python3
"""Writes telegraf-day.lp: a day of two hosts' `cpu` and `mem` measurements as Telegraf's
cpu and mem input plugins write them (line protocol, second precision, one line per host and
measurement every 10 minutes: 144 x 2 x 2 = 576 lines), with a CPU spike planted on web-1 at
03:00-03:40 and 15:00-15:40, two lines Telegraf would not write (a syntax error, a string
field) to show how bad lines are counted. Generated, not recorded: seed 11, `math` and
`random` only."""
import math
import random

random.seed(11)
T0 = 1_700_006_400  # 2023-11-15 00:00:00 UTC
SPIKE = [0, 40, 85, 90, 45, 5]  # percentage points over the daily curve, 10 minutes apart
lines = []
for step in range(144):
    t = T0 + step * 600
    for host in ("web-1", "web-2"):
        base = 20 + 10 * math.sin(2 * math.pi * step / 144) + random.gauss(0, 1.5)
        extra = 0.0
        if host == "web-1":
            for start in (18, 90):  # 03:00 and 15:00
                if start <= step < start + len(SPIKE):
                    extra = SPIKE[step - start]
        usage = min(100.0, max(0.0, base + extra))
        lines.append(f"cpu,cpu=cpu-total,host={host} usage_user={usage:.2f},"
                     f"usage_idle={100 - usage:.2f} {t}")
        used = 40 + 5 * math.sin(2 * math.pi * step / 144 + 1) + random.gauss(0, 0.5)
        lines.append(f"mem,host={host} used_percent={used:.2f},available_percent={100 - used:.2f} {t}")
lines.insert(200, "cpu,host=web-2 usage_user= 1700066400")  # a field without its value
lines.insert(400, f'cpu,cpu=cpu-total,host=web-1 usage_user="n/a" {T0 + 40000}')
with open("telegraf-day.lp", "w") as f:
    f.write("\n".join(lines) + "\n")
