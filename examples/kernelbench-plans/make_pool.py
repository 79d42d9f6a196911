#!/usr/bin/env python3
"""Builds examples/kernelbench-plans/pool.jsonl from the completions under candidates/ (standard
library only; the output is deterministic).

Each completion is `candidates/<task id>/<case>.md`, a whole answer to an imported KernelBench
level-2 task (a plan as data and its CUDA kernels); each line of the pool is
`{"id": "<task id>/<case>", "task": "<task id>", "completion": ...}`, in the order of the sorted
paths.

    python3 make_pool.py                       # writes pool.jsonl next to this file
    python3 make_pool.py --check               # exits 1 if pool.jsonl is out of date
    python3 make_pool.py --fake-tasks SRC DST  # copies the pool's tasks from SRC (an import's
                                               # folder) to DST without their timed size

`--fake-tasks` is for the fake device, which computes a plan's GEMM on the CPU: it keeps each
task's correctness sizes (the smaller ones the import makes) and drops its first size, the
timed one, where one candidate takes the fake device tens of minutes. The module file each copy
names is rewritten relative to DST, so DST may be anywhere.
"""

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cases():
    """(task id, case, completion) for every candidate file, in path order."""
    return [
        (path.parent.name, path.stem, path.read_text())
        for path in sorted((HERE / "candidates").glob("*/*.md"))
    ]


def pool_text():
    return "".join(
        json.dumps({"id": f"{task}/{case}", "task": task, "completion": completion}) + "\n"
        for task, case, completion in cases()
    )


def without_timed_size(text, src, dst):
    """A task file's text with its first size dropped and its module path made relative to dst.
    The import writes `sizes:` as a block list, the timed size first, and the module as
    `  torch: PATH:CLASS` relative to the task's folder."""
    lines = text.splitlines(keepends=True)
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip("\n") == "sizes:":
            # The first entry (`- var: N`, and any `  var: N` lines under it) is the timed size.
            out.append(line)
            i += 2
            while i < len(lines) and lines[i].startswith("  "):
                i += 1
            continue
        if line.startswith("  torch: "):
            path, cls = line[len("  torch: "):].rstrip("\n").rsplit(":", 1)
            module = (src / path).resolve()
            out.append(f"  torch: {os.path.relpath(module, dst.resolve())}:{cls}\n")
            i += 1
            continue
        out.append(line)
        i += 1
    return "".join(out)


def fake_tasks(src, dst):
    dst.mkdir(parents=True, exist_ok=True)
    tasks = sorted({task for task, _, _ in cases()})
    for task in tasks:
        path = src / f"{task}.yaml"
        if not path.exists():
            raise SystemExit(f"make_pool.py: {path} does not exist: import the level-2 tasks first")
        text = without_timed_size(path.read_text(), src, dst)
        if text.count("\nsizes:\n") != 1:
            raise SystemExit(f"make_pool.py: {path} has no `sizes:` list as the import writes it")
        (dst / f"{task}.yaml").write_text(text)
    print(f"wrote {len(tasks)} tasks without their timed size to {dst}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if pool.jsonl is out of date")
    ap.add_argument("--fake-tasks", nargs=2, metavar=("SRC", "DST"),
                    help="copy the pool's tasks from SRC to DST without their timed size")
    args = ap.parse_args()
    if args.fake_tasks:
        fake_tasks(Path(args.fake_tasks[0]), Path(args.fake_tasks[1]))
        return 0
    path = HERE / "pool.jsonl"
    text = pool_text()
    if args.check:
        if not path.exists() or path.read_text() != text:
            print(f"{path} is out of date: run make_pool.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(f"wrote {path} ({text.count(chr(10))} completions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
