#!/usr/bin/env python3
"""Builds examples/kernelbench-l1/pool.jsonl from the candidates in this folder (standard library
only; the output is deterministic).

Ten KernelBench level-1 problems, four candidates each: `fast` (a good kernel), `slow` (right and
clearly slower), `wrong` (wrong on part of the domain the task allows) and one cheat of a kind the
harness validation suite covers (examples/kernels/validation.yaml), named for its kind. Each
candidate is `candidates/<task id>/<case>.cu`; its opening comment says what it does and what the
harness is expected to make of it, and stays out of the pool: a completion is the rest of the file
in one ```cuda block. README.md has the expected verdicts against torch eager and torch.compile.

Eight of the problems again as Triton tasks (imported with `--language triton`, ids ending in
`_triton`), four candidates each in the same roles: `candidates/<task id>_triton/<case>.py`, its
opening comment (`#` lines) left out, the rest of the module in one ```python block. Their lines
follow the CUDA ones, which stay as they were.

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

# The Triton tasks (task id, its cheat's case name), in pool order after the CUDA ones, again
# alternating modules with large and small intermediate tensors. LayerNorm and the loss have none:
# each needs a reduction across programs (16 rows of 4M values; a mean over all rows) that one
# Triton kernel, with no grid-wide synchronisation or scratch memory, does only on a few SMs.
TRITON_TASKS = [
    ("kernelbench_l1_26_gelu_triton", "stale-output"),
    ("kernelbench_l1_25_swish_triton", "input-mutation"),
    ("kernelbench_l1_88_mingptnewgelu_triton", "hardcoded-size"),
    ("kernelbench_l1_30_softsign_triton", "oob-write"),
    ("kernelbench_l1_24_logsoftmax_triton", "input-mutation"),
    ("kernelbench_l1_36_rmsnorm_triton", "scribble"),
    ("kernelbench_l1_47_sum_reduction_over_a_dimension_triton", "constant-answer"),
    ("kernelbench_l1_89_cumsum_triton", "sentinel-skip"),
]

# (task list, file suffix, the opening comment's line prefix, the code block's language)
LANGUAGES = [
    (TASKS, ".cu", "//", "cuda"),
    (TRITON_TASKS, ".py", "#", "python"),
]


def source(path, comment="//"):
    """A candidate's code without its opening comment block (lines starting with `comment`)."""
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith(comment):
        i += 1
    return "\n".join(lines[i:]).strip("\n") + "\n"


def cases():
    """Every (task, case, completion), in pool order."""
    out = []
    for tasks, suffix, comment, lang in LANGUAGES:
        for task, cheat in tasks:
            folder = HERE / "candidates" / task
            names = ["fast", "slow", "wrong", cheat]
            found = sorted(p.stem for p in folder.glob(f"*{suffix}"))
            if sorted(names) != found:
                raise SystemExit(f"make_pool.py: {folder} holds {found}, expected {sorted(names)}")
            for case in names:
                code = source(folder / f"{case}{suffix}", comment)
                out.append((task, case, f"```{lang}\n{code}```\n"))
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
