#!/usr/bin/env python3
"""Writes gsm8k-rollouts.parquet: a small GSM8K-style dataset in verl's layout (``data_source``,
``prompt`` as chat messages, ``ability``, ``reward_model.{style, ground_truth}``,
``extra_info.{split, index, question, answer}``) with a model-like ``response`` per row, as a
rollout dump holds them: right answers boxed or stated, wrong ones, one without an answer, one
in GSM8K's own ``#### n`` form. The questions are made from templates here; no data set is
downloaded. Needs pyarrow (the trainer venv has it).

    python3 make_dataset.py            # writes gsm8k-rollouts.parquet beside this file
    python3 make_dataset.py --check    # exits 1 if the file is not what this script writes
"""

import io
import random
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
OUT = HERE / "gsm8k-rollouts.parquet"
INSTRUCTION = "Let's think step by step and output the final answer after \"####\"."

NAMES = ["Ava", "Ben", "Chen", "Dana", "Eli", "Fatima", "Goran", "Hana", "Ivan", "Jia"]
THINGS = ["apples", "stickers", "marbles", "books", "pencils", "shells", "cards", "stamps"]


def problem(rng, i):
    """A question, its worked solution and its answer."""
    name, thing = NAMES[i % len(NAMES)], THINGS[i % len(THINGS)]
    kind = i % 4
    if kind == 0:
        a, b, c = rng.randint(5, 40), rng.randint(2, 9), rng.randint(1, 20)
        ans = a * b - c
        q = f"{name} buys {b} boxes of {thing} with {a} in each box and gives {c} away. How many {thing} are left?"
        sol = f"{name} has {b} * {a} = {a * b} {thing}. After giving {c} away: {a * b} - {c} = {ans}."
    elif kind == 1:
        a, b = rng.randint(10, 90), rng.randint(2, 6)
        ans = a * b + a
        q = f"{name} reads {a} pages on Monday and {b} times as many on Tuesday. How many pages in all?"
        sol = f"Tuesday: {a} * {b} = {a * b}. In all: {a} + {a * b} = {ans}."
    elif kind == 2:
        per, n = rng.randint(2, 12), rng.randint(3, 15)
        ans = per * n
        q = f"Each of {n} friends pays ${per} for {thing}. How many dollars do they pay together?"
        sol = f"{n} * {per} = {ans}."
    else:
        total, parts = rng.randint(4, 30) * 4, 4
        ans = total // parts
        q = f"{name} shares {total} {thing} equally among {parts} bags. How many {thing} are in each bag?"
        sol = f"{total} / {parts} = {ans}."
    return q, sol, ans


def response(rng, i, sol, ans):
    """A model-like response: what a policy's rollout could say."""
    style = i % 6
    if style == 0:
        return f"{sol}\nThe answer is {ans}."
    if style == 1:
        return f"{sol} So the final answer is \\boxed{{{ans}}}."
    if style == 2:
        return f"{sol}\n#### {ans}"
    if style == 3:
        return f"I think it is \\boxed{{{ans + rng.randint(1, 9)}}}."
    if style == 4:
        return "Let me see. The numbers are hard to combine, so I am not sure."
    return f"{sol}\nFinal answer: {ans}"


def table():
    rng = random.Random(20261204)
    rows = []
    for i in range(48):
        q, sol, ans = problem(rng, i)
        rows.append(
            {
                "data_source": "openai/gsm8k",
                "prompt": [{"role": "user", "content": f"{q} {INSTRUCTION}"}],
                "ability": "math",
                "reward_model": {"style": "rule", "ground_truth": str(ans)},
                "extra_info": {"split": "test", "index": i, "question": q, "answer": f"{sol}\n#### {ans}"},
                "response": response(rng, i, sol, ans),
            }
        )
    return pa.Table.from_pylist(rows)


def encoded():
    buf = io.BytesIO()
    pq.write_table(table(), buf, compression="snappy")
    return buf.getvalue()


def main():
    data = encoded()
    if "--check" in sys.argv:
        same = OUT.exists() and pq.read_table(OUT).equals(pq.read_table(io.BytesIO(data)))
        print(f"{OUT.name}: {'up to date' if same else 'out of date'}")
        sys.exit(0 if same else 1)
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes, {table().num_rows} rows)")


if __name__ == "__main__":
    main()
