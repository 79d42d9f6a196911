#!/usr/bin/env python3
"""Builds examples/triton-kernels/pool.jsonl, the Triton kernel example pool, from the Triton
references and validation candidates in this folder (standard library only; the output is
deterministic).

The helpers that turn sources into completions (exact edits, fenced blocks, prose) are those of
../kernels/make_pool.py, imported from there. Besides correct, faster, slower and wrong kernels,
the pool holds the ways a Triton answer goes wrong that a CUDA one cannot: a CUDA block where a
Python module was asked for, a kernel wrapped in `@triton.autotune` (its configs are ignored:
the launch is chosen by data), Python that fails at import, and side effects at import.

    python3 make_pool.py            # writes pool.jsonl next to this file
    python3 make_pool.py --check    # exits 1 if pool.jsonl is out of date
    python3 make_pool.py --table    # prints the cases and their intended verdicts (Markdown)
"""

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("cuda_pool", HERE.parent / "kernels" / "make_pool.py")
cuda_pool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cuda_pool)
edit = cuda_pool.edit
long_prose = cuda_pool.long_prose


def reference(task):
    return (HERE / "reference" / f"{task}.py").read_text()


def candidate(task, case):
    return (HERE / "candidates" / task / f"{case}.py").read_text()


def answer(intro, code, outro="", lang="python"):
    return cuda_pool.answer(intro, code, outro, lang)


def cases():
    """Every pool case: (task, case, intended verdict, completion)."""
    c = []

    def add(task, case, verdict, completion):
        c.append((task, case, verdict, completion))

    t = "vector_add"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "One program per 1024 elements, masked loads and stores.", reference(t)))
    add(t, "wide", "correct; as fast as the reference (memory-bound): not-faster or within-noise", answer(
        "Wider programs (4096 elements, 8 warps) keep more bytes in flight.", candidate(t, "wide")))
    add(t, "wrong-sign", "ref.native broke (output-mismatch: a - b)", answer(
        "Element-wise:", candidate(t, "wrong")))
    add(t, "no-code", "parse broke (no-code-block)",
        "Use one program per BLOCK elements: offsets = pid * BLOCK + arange(BLOCK), mask them with "
        "offsets < n, load a and b, add and store into c.\n")
    add(t, "cuda-answer", "parse broke (no-code-block: a CUDA block where Python was asked for)",
        cuda_pool.answer("In CUDA this is:", cuda_pool.reference("vector_add"), lang="cuda"))
    add(t, "syntax-error", "compile broke (compile-error: SyntaxError at import)", answer(
        "Masked loads and stores:", edit(reference(t), "mask = offs < n", "mask = offs < n)")))
    add(t, "autotune", "correct; not-faster: @triton.autotune is unwrapped, its configs ignored",
        answer(
            "With autotuning over block sizes:",
            edit(reference(t), "@triton.jit",
                 "@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (2, 4, 8)], key=[\"n\"])\n"
                 "@triton.jit")))
    add(t, "oob-write", "ref.native broke (guard-overwritten)", answer(
        "Masked loads; the store covers n as well, harmlessly.", candidate(t, "oob-write")))
    add(t, "input-mutation", "ref.native broke (input-mutated)", answer(
        "The sum is also cached in a for later use.", candidate(t, "input-mutation")))
    add(t, "import-side-effects", "correct; not-faster: nothing done at import reaches anything",
        answer("Here is the module:", candidate(t, "import-side-effects")))

    t = "transpose"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "One program per run of the output.", reference(t)))
    add(t, "fast", "correct; faster (64 x 64 tiles, loads and stores along rows)", answer(
        "Tiles loaded along the input's rows, transposed with tl.trans, stored along the output's "
        "rows; a 2-D grid of tiles.", candidate(t, "faster")))
    add(t, "slower", "correct; not-faster", answer(
        "By the input's linear index, one warp per program.", candidate(t, "slower")))
    add(t, "swapped", "ref.native broke (output-mismatch off the square size)", answer(
        "Transposing by index:", candidate(t, "wrong")))

    t = "block_sum"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "tl.sum over each 256-element block.", reference(t)))
    add(t, "fast", "correct; faster or not-faster (16 blocks per program)", answer(
        "Sixteen blocks per program in a [16, 256] tile, summed along its rows.",
        candidate(t, "faster")))
    add(t, "drops-last", "ref.native broke (output-mismatch)", answer(
        "Block sums:", candidate(t, "wrong")))

    t = "softmax"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "Three passes per row: max, sum of exponentials, outputs.", reference(t)))
    add(t, "fast", "correct; faster or not-faster (one tile per row, read once)", answer(
        "Each row fits one tile of 1024, so it is read once.", candidate(t, "faster")))
    add(t, "unstable", "ref.native broke (output-mismatch: exp overflows)", answer(
        "Softmax in one tile:", candidate(t, "wrong")))

    t = "matmul"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "32 x 32 tiles with tl.dot in full fp32.", reference(t)))
    add(t, "fast", "correct; faster or not-faster (64 x 64 tiles, 8 warps)", answer(
        "Larger tiles halve the loads per product.", candidate(t, "faster")))
    add(t, "tf32", "ref.native broke (output-mismatch: TF32 products)", answer(
        "Tensor cores make this fast:", candidate(t, "wrong")))
    add(t, "long", "correct (faster kernel); length penalty (between soft and hard limits)", answer(
        long_prose(15000, "a tiled matrix product") + "\n\nHere is the kernel:",
        candidate(t, "faster"),
        "It handles any m, n and k."))
    return c



if __name__ == "__main__":
    sys.exit(cuda_pool.pool_main(HERE, cases, __doc__))
