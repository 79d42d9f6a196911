#!/usr/bin/env python3
"""Renders the figures a `scripts/gpu.sh` run wrote under OUT as the run's Markdown file for
docs/runs/: the machine and commit, a table of the steps, then each step's own summary table, made
from the JSON the commands wrote (`validate --json`, `bench kernels --json`, `task check --json`,
a scored run's summary.md). Nothing is typed by hand, so a run file says what the run printed.

    python3 scripts/render-run.py OUT [--title TITLE] > docs/runs/DATE-NAME.md
"""

import argparse
import collections
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt(x, digits=3):
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def validate_section(path):
    cases = load(path)
    passed = sum(1 for c in cases if c.get("pass"))
    verdicts = collections.Counter(c["got"].split(" s=")[0] for c in cases)
    lines = [f"{passed} of {len(cases)} cases pass.", ""]
    lines.append(table(["what the case got", "cases"], sorted(verdicts.items(), key=lambda kv: -kv[1])))
    failed = [c for c in cases if not c.get("pass")]
    if failed:
        lines += ["", "Cases that did not pass:", ""]
        lines.append(table(["case", "expected", "got"], [(c["id"], c["expected"], c["got"]) for c in failed]))
    timed = [(c["id"], m.group(1)) for c in cases for m in [re.search(r"s=([0-9.]+)", c["got"])] if m]
    if timed:
        lines += ["", "Speedups measured (s): " + ", ".join(f"{i} {s}" for i, s in timed)]
    return "\n".join(lines)


def bench_section(path):
    d = load(path)
    lines = []
    if "aa" in d:
        a = d["aa"]
        lines.append(
            table(
                ["A/A self-timings", "task", "symmetric", "size", "faster", "penalised", "s min", "s median", "s max", "seconds"],
                [
                    (
                        a.get("timings", a.get("asked")),
                        a.get("task", ""),
                        "yes" if a.get("symmetric") else "no",
                        json.dumps(a.get("size", "")),
                        a.get("faster"),
                        a.get("penalised"),
                        fmt(a.get("s_min"), 4),
                        fmt(a.get("s_median"), 4),
                        fmt(a.get("s_max"), 4),
                        fmt(a.get("seconds"), 1),
                    )
                ],
            )
        )
    if "tasks" in d and isinstance(d["tasks"], dict):
        rows = []
        for t, v in sorted(d["tasks"].items()):
            rows.append((t, fmt(v.get("run_s")), fmt(v.get("time_s")), v.get("verdict", ""), json.dumps(v.get("detail", {}))[:120]))
        lines += ["", table(["task", "run s", "time s", "verdict", "detail"], rows)]
    if "candidates" in d:
        rows = [("candidates", d["candidates"]), ("distinct", d.get("distinct")), ("wall s", fmt(d.get("wall_s"))),
                ("candidates/s", fmt(d.get("per_s"))), ("GPUs", d.get("gpus")), ("GPU busy", fmt(d.get("gpu_busy")))]
        for k in ("compile", "correctness", "timing", "waiting", "overhead_per_launch"):
            if isinstance(d.get(k), dict):
                v = d[k]
                rows.append((f"{k}: count, median s, p90 s", f"{v['count']}, {fmt(v['median_s'], 4)}, {fmt(v['p90_s'], 4)}"))
        lines += ["", table(["figure", "value"], rows)]
        if d.get("outcomes"):
            lines += ["", table(["outcome", "candidates"], sorted(d["outcomes"].items(), key=lambda kv: -kv[1]))]
    return "\n".join(lines) or "```\n" + json.dumps(d, indent=1)[:3000] + "\n```"


def check_section(path):
    d = load(path)
    rows = []
    for t in d.get("tasks", []):
        aa = t.get("aa") or {}
        rows.append((t["id"], "pass" if t.get("pass") else "FAIL", " ".join(t.get("steps", [])), fmt(aa.get("s"), 3) if aa else "-",
                     fmt(aa.get("median_s", 0) * 1e6, 1) if aa.get("median_s") else "-", t.get("why", "")))
    passed = sum(1 for t in d.get("tasks", []) if t.get("pass"))
    head = f"{passed} of {len(d.get('tasks', []))} tasks pass on {d.get('device')}, compiler {d.get('compiler')}."
    return head + "\n\n" + table(["task", "result", "steps", "A/A s", "reference µs", "why"], rows)


def summary_section(folder):
    path = os.path.join(folder, "summary.md")
    if not os.path.exists(path):
        return "(no summary.md: the run did not finish)"
    text = open(path).read().strip()
    # The summary's own title is dropped; its tables stay.
    return re.sub(r"^# .*\n", "", text)


def compilers_section(out, files):
    """When a suite was validated under two compilers: s per timed case side by side."""
    by_suite = collections.defaultdict(dict)
    for f in files:
        m = re.match(r"\d+-validate-(.+)-(nvcc|nvrtc)\.validate\.json$", f)
        if m:
            for c in load(os.path.join(out, f)):
                got = re.search(r"s=([0-9.]+)", c["got"])
                if got:
                    by_suite[(m.group(1), c["id"])][m.group(2)] = float(got.group(1))
    rows = [(suite, case, v["nvrtc"], v["nvcc"]) for (suite, case), v in sorted(by_suite.items()) if len(v) == 2]
    if not rows:
        return None
    ratios = sorted(b / a for _, _, a, b in rows if a > 0)
    n = len(ratios)
    text = table(["suite", "case", "s (NVRTC)", "s (nvcc)", "nvcc / NVRTC"],
                 [(s_, c, fmt(a), fmt(b), fmt(b / a) if a > 0 else "-") for s_, c, a, b in rows])
    return text + (f"\n\n{n} timed cases; nvcc / NVRTC ratio of s: min {ratios[0]:.3f}, median {ratios[n // 2]:.3f}, "
                   f"max {ratios[-1]:.3f}" if n else "")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--title", default=None)
    a = ap.parse_args(argv)
    meta = load(os.path.join(a.out, "meta.json"))
    steps = [json.loads(l) for l in open(os.path.join(a.out, "steps.jsonl")) if l.strip()]
    day = meta["date"][:10]
    title = a.title or f"GPU run, {day}"
    print(f"# {title}\n")
    fake = "--fake " if meta.get("fake") else ""
    print(f"Rendered by `scripts/render-run.py` from `scripts/gpu.sh {fake}{meta['steps']}`.\n")
    print(table(["date", "commit", "GPU", "nvcc", "CPUs", "compiler"],
                [(meta["date"], f"`{meta['commit']}`", meta["gpu"], meta.get("nvcc") or "-", meta.get("cpus"), meta.get("compiler"))]))
    print("\n## Steps\n")
    print(table(["#", "step", "exit", "seconds"], [(i + 1, f"`{s['step']}`", s["rc"], fmt(s["seconds"], 1)) for i, s in enumerate(steps)]))
    files = sorted(os.listdir(a.out))
    for i, s in enumerate(steps):
        tag = f"{i + 1:02d}-{s['step'].split(':')[0]}"
        print(f"\n## {i + 1}. `{s['step']}`\n")
        mine = [f for f in files if f.startswith(tag)]
        if not mine:
            print("(no figures written)")
        for f in mine:
            p = os.path.join(a.out, f)
            if f.endswith(".validate.json"):
                print(validate_section(p))
            elif f.endswith(".bench.json"):
                print(bench_section(p))
            elif f.endswith(".check.json"):
                print(check_section(p))
            elif os.path.isdir(p):
                print(summary_section(p))
            elif f.endswith(".txt"):
                print("```\n" + open(p).read().strip()[-4000:] + "\n```")
    both = compilers_section(a.out, files)
    if both:
        print("\n## The two compilers compared\n")
        print(both)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
