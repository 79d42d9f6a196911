#!/usr/bin/env python3
"""Builds examples/kernelbench-l1/pool.jsonl from the candidates in this folder (standard library
only; the output is deterministic).

Ten KernelBench level-1 problems, four candidates each: `fast` (a good kernel), `slow` (right and
clearly slower), `wrong` (wrong on part of the domain the task allows) and one cheat of a kind the
harness validation suite covers (examples/kernels/validation.yaml), named for its kind. Each
candidate is `candidates/<task id>/<case>.cu`; its opening comment says what it does and what the
harness is expected to make of it, and stays out of the pool: a completion is the rest of the file
in one ```cuda block. README.md has the expected verdicts against torch eager and torch.compile.

    python3 make_pool.py            # writes pool.jsonl next to this file
    python3 make_pool.py --check    # exits 1 if pool.jsonl is out of date

The tasks alternate between problems whose module holds several gigabytes of intermediate
tensors at the timed size and problems whose module holds little, so that the reference
processes a harness keeps alive at one time (one per module) do not all hold large ones.
"""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (task id, its cheat's case name), in pool order.
TASKS = [
    ("kernelbench_l1_26_gelu", "launch-counter"),
    ("kernelbench_l1_88_mingptnewgelu", "hardcoded-size"),
    ("kernelbench_l1_25_swish", "input-mutation"),
    ("kernelbench_l1_95_crossentropyloss", "constant-answer"),
    ("kernelbench_l1_30_softsign", "oob-write"),
    ("kernelbench_l1_40_layernorm", "scribble"),
    ("kernelbench_l1_24_logsoftmax", "stale-output"),
    ("kernelbench_l1_47_sum_reduction_over_a_dimension", "search-expected"),
    ("kernelbench_l1_36_rmsnorm", "device-cache"),
    ("kernelbench_l1_89_cumsum", "sentinel-skip"),
]


def source(path):
    """A .cu file's code without its opening comment block."""
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        i += 1
    return "\n".join(lines[i:]).strip("\n") + "\n"


def cases():
    """Every (task, case, completion), in pool order."""
    out = []
    for task, cheat in TASKS:
        folder = HERE / "candidates" / task
        names = ["fast", "slow", "wrong", cheat]
        found = sorted(p.stem for p in folder.glob("*.cu"))
        if sorted(names) != found:
            raise SystemExit(f"make_pool.py: {folder} holds {found}, expected {sorted(names)}")
        for case in names:
            out.append((task, case, "```cuda\n" + source(folder / f"{case}.cu") + "```\n"))
    return out


def lines():
    return "".join(
        json.dumps({"id": f"{task}-{case}", "task": task, "completion": completion}) + "\n"
        for task, case, completion in cases()
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if pool.jsonl is out of date")
    args = ap.parse_args()
    path = HERE / "pool.jsonl"
    text = lines()
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
