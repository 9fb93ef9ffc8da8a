#!/usr/bin/env python3
"""bench/make_docs.py DIR METRICS RUNS: the result documents of LKP's
matrix, RUNS a side of METRICS metrics, into DIR/base and DIR/head.

Names like LKP's (monitors, devices, the test's own), values like a
box's (counters as integers, rates with a fraction), run-to-run noise of
a few percent, and every 50th metric 20% up on the head: a comparison
with something to show."""
import json
import os
import random
import sys

PREFIXES = ["proc-vmstat.", "iostat.loop0.", "vmstat.system.", "meminfo.",
            "fsmark.time.", "perf-stat."]


def name(i):
    if i == 0:
        return "fsmark.files_per_sec"
    if i % 6 == 1:
        return "iostat.loop%d.wkB/s" % (i % 8)  + ".m%d" % i
    return "%smetric_%d" % (PREFIXES[i % 6], i)


def main():
    out, nmetrics, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(1)
    names = [name(i) for i in range(nmetrics)]
    level = [rng.choice([1, 1e3, 1e5, 1e8]) * (1 + rng.random())
             for _ in range(nmetrics)]
    for side, commit in (("base", "a" * 40), ("head", "b" * 40)):
        os.makedirs(os.path.join(out, side), exist_ok=True)
        for r in range(runs):
            stats = {}
            for i, n in enumerate(names):
                v = level[i] * (1 + rng.gauss(0, 0.02))
                if side == "head" and i % 50 == 0:
                    v *= 1.2
                stats[n] = round(v) if i % 3 == 0 else float("%.6g" % v)
            doc = {
                "version": 1,
                "job": {"testcase": "fsmark", "fs": "ext4",
                        "fs_mark": {"filesize": "8K"}},
                "key": "fsmark/8K-ext4", "tbox_group": "bench",
                "box": "bench-1", "tree": "linux", "commit": commit,
                "started": "2026-12-01T10:00:00Z",
                "finished": "2026-12-01T10:05:00Z",
                "status": "ok", "error": None,
                "stats": stats,
                "outputs": {"fsmark": "FSUse%        Count         Size"
                            "    Files/sec     App Overhead\n"},
            }
            with open(os.path.join(out, side, "run%04d.json" % r), "w") as f:
                json.dump(doc, f, indent=1)


main()
