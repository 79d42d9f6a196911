#!/usr/bin/env python3
"""Summarises an AORLTA_TIMELINE file: per kind of span (count, total, median, p90), the GPU's
job coverage over the run, the harness's own share of each job, and where the gaps between
jobs went.   scripts/timeline.py FILE [FILE...]"""
import json, re, sys, statistics as st

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")

def summarise(path):
    ev = [json.loads(l) for l in open(path) if l.strip()]
    if not ev:
        print(f"{path}: empty"); return
    t_start = min(e["t0"] for e in ev); t_end = max(e["t1"] for e in ev)
    wall = t_end - t_start
    print(f"== {path}: {len(ev)} spans over {wall:.1f} ms")
    kinds = {}
    for e in ev:
        kinds.setdefault(e["k"], []).append(e["t1"] - e["t0"])
    print(f"{'KIND':<14}{'COUNT':>7}{'TOTAL MS':>11}{'MEDIAN':>10}{'P90':>10}{'MAX':>10}")
    for k, xs in sorted(kinds.items()):
        print(f"{k:<14}{len(xs):>7}{sum(xs):>11.1f}{st.median(xs):>10.2f}{pct(xs, .9):>10.2f}{max(xs):>10.2f}")
    jobs = sorted((e for e in ev if e["k"] == "job"), key=lambda e: e["t0"])
    if not jobs:
        return
    inside = []
    for j in jobs:
        m = re.search(r"harness_ms=([0-9.]+)", j["l"])
        if m:
            inside.append(float(m.group(1)))
    span = sum(j["t1"] - j["t0"] for j in jobs)
    union, end = 0.0, None
    for j in jobs:  # sorted by start
        a, b = j["t0"], j["t1"]
        if end is None or a > end:
            union += b - a; end = b
        elif b > end:
            union += b - end; end = b
    print(f"GPU busy (at least one job running): {union:.1f} ms = {100 * union / wall:.1f}% of the wall")
    print(f"jobs: first starts at {jobs[0]['t0'] - t_start:.1f} ms, last ends at {jobs[-1]['t1'] - t_start:.1f} ms")
    print(f"job spans sum to {span:.1f} ms = {100 * span / wall:.1f}% of the wall; the harness's own time "
          f"{sum(inside):.1f} ms = {100 * sum(inside) / wall:.1f}%; outside the harness per job: median "
          f"{st.median([j['t1'] - j['t0'] - h for j, h in zip(jobs, inside)]) if inside else float('nan'):.3f} ms")
    # Gaps between consecutive jobs and what ran in them.
    gaps = {}
    for a, b in zip(jobs, jobs[1:]):
        g0, g1 = a["t1"], b["t0"]
        if g1 <= g0:
            continue
        busy = [e["k"] for e in ev if e["k"] in ("harness-start", "sanity") and e["t0"] < g1 and e["t1"] > g0]
        key = "+".join(sorted(set(busy))) or "nothing of the GPU"
        gaps.setdefault(key, []).append(g1 - g0)
    lead = jobs[0]["t0"] - t_start
    print(f"before the first job: {lead:.1f} ms")
    for k, xs in sorted(gaps.items(), key=lambda kv: -sum(kv[1])):
        print(f"  gaps between jobs during {k:<28} {len(xs):>5} gaps, {sum(xs):>9.1f} ms, median {st.median(xs):.3f} ms")
    by = {}
    for j, h in zip(jobs, inside):
        kind = j["l"].split("/")[0]
        by.setdefault(kind, []).append(h)
    for k, xs in sorted(by.items()):
        print(f"  harness time of {k} jobs: {len(xs)}, total {sum(xs):.1f} ms, median {st.median(xs):.2f} ms, p90 {pct(xs, .9):.2f} ms")

for p in sys.argv[1:]:
    summarise(p)
