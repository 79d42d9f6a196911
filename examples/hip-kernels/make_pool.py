#!/usr/bin/env python3
"""Builds examples/hip-kernels/pool.jsonl, the HIP kernel example pool, from the HIP references
and validation candidates in this folder (standard library only; the output is deterministic).

The helpers that turn sources into completions (the comment header dropped, exact edits, fenced
blocks, prose) are those of ../kernels/make_pool.py, imported from there; this file holds only
the HIP cases. Besides the cases the CUDA pool has (correct naive and fast kernels, wrong
outputs, no code, compile errors, cheats), it has the two ways a HIP answer goes wrong across
platforms: a CUDA-only intrinsic (compiles on NVIDIA through the portability header, not with
hipcc) and a reduction that assumes a 32-lane warp (right on NVIDIA, wrong on AMD's 64-lane
wavefronts).

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
    return cuda_pool.source(HERE / "reference" / f"{task}.hip")


def candidate(task, case):
    return cuda_pool.source(HERE / "candidates" / task / f"{case}.hip")


def cuda_candidate(task, case):
    """A CUDA candidate of ../kernels, as a model that ignores the HIP prompt would answer."""
    return cuda_pool.source(HERE.parent / "kernels" / "candidates" / task / f"{case}.cu")


def answer(intro, code, outro="", lang="hip"):
    return cuda_pool.answer(intro, code, outro, lang)


# A block-sum reduction written for a 32-lane warp: butterfly shuffles over 32 lanes, one partial
# per 32 threads, but the lane test uses warpSize. Right where warpSize is 32 (NVIDIA); on a
# 64-lane wavefront only every other partial is written and each holds half a wavefront's sum.
WARP32 = """#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float warp_sums[8];
    int i = blockIdx.x * 256 + threadIdx.x;
    float s = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) {
        s += __shfl_xor(s, offset);
    }
    int lane = threadIdx.x % warpSize;
    if (lane == 0) {
        warp_sums[threadIdx.x / 32] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < 8; ++w) {
            t += warp_sums[w];
        }
        out[blockIdx.x] = t;
    }
}
"""


def cases():
    """Every pool case: (task, case, intended verdict, completion)."""
    c = []

    def add(task, case, verdict, completion):
        c.append((task, case, verdict, completion))

    # ---- vector_add ----
    t = "vector_add"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "A portable HIP kernel: one thread per element with a bounds check, default launch geometry.",
        reference(t)))
    add(t, "fast", "correct; faster only marginally (memory-bound), may be within-noise", answer(
        "float4 loads and stores in a grid-stride loop over a fixed grid, with a scalar path for "
        "unaligned pointers and the tail; nothing here depends on the vendor.",
        candidate(t, "faster")))
    add(t, "wrong-bound", "ref.native broke (output-mismatch: last element never written)", answer(
        "One thread per element. The last thread has nothing to do, so I skip it.",
        edit(reference(t), "if (i < n) {", "if (i < n - 1) {")))
    add(t, "no-code", "parse broke (no-code-block)",
        "In HIP, as in CUDA, launch one thread per element: hipLaunchKernelGGL with "
        "ceil(n / 256) blocks of 256 threads, each thread writing a[i] + b[i] to c[i] when i < n.\n")
    add(t, "compile-error", "compile broke (compile-error: missing semicolon)", answer(
        "A simple one-thread-per-element kernel:",
        edit(reference(t), "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]")))
    add(t, "cuda-intrinsic", "NVIDIA: correct (faster only marginally); AMD: compile broke "
        "(compile-error: __stcs is CUDA-only)", answer(
        "The fastest version uses read-only loads and streaming stores:",
        cuda_candidate(t, "faster"), lang="cuda"))
    add(t, "oob-write", "ref.native broke (guard-overwritten) + broke_healthy", answer(
        "One thread per element; the last thread also writes a terminator after the data.",
        candidate(t, "oob-write")))
    add(t, "stateful-counter", "never faster: a fresh module per launch makes it compute every "
        "time (not-faster), or a second launch in one module is caught (output-mismatch)", answer(
        "This kernel remembers how often it has run and skips redundant work on repeated calls.",
        candidate(t, "stateful-counter")))

    # ---- transpose ----
    t = "transpose"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "A direct transpose: one thread per element, reading in[r][c] and writing out[c][r].",
        reference(t)))
    add(t, "fast", "correct; faster (32x32 tiles, coalesced both ways; how much depends on the GPU)",
        answer(
            "Staging 32x32 tiles in shared memory (padded to 33 columns) makes both the loads and "
            "the stores coalesced; blocks of 32x8 threads loop over tiles.",
            candidate(t, "faster")))
    add(t, "tiled-slight", "correct; slightly faster: not-faster at ratio 1.1, faster at ratio 1.0",
        answer(
            "Part of the blocks go through a shared-memory tile, the rest transpose directly.",
            candidate(t, "tiled-slight")))
    add(t, "slower", "correct; not-faster (s about 0.5)", answer(
        "Each thread also fills the mirrored element, for robustness.",
        candidate(t, "slower")))
    add(t, "wrong-copy", "ref.native broke (output-mismatch: copies instead of transposing)", answer(
        "One thread per element:",
        edit(reference(t), "out[(long long)c * rows + r]", "out[(long long)r * cols + c]")))
    add(t, "compile-error", "compile broke (compile-error: undeclared identifier)", answer(
        "One thread per element:",
        edit(reference(t), "in[(long long)r * cols + c]", "in[(long long)r * width + c]")))
    add(t, "sentinel-skip", "never faster: output-mismatch if the sentinel is finite and non-zero, "
        "otherwise computes every time (not-faster)", answer(
        "Blocks whose output is already written skip the work.",
        candidate(t, "sentinel-skip")))

    # ---- block_sum ----
    t = "block_sum"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "A shared-memory tree reduction per 256-element chunk.",
        reference(t)))
    add(t, "fast", "correct; faster (four chunks per block, 64-wide trees, no warp intrinsics)",
        answer(
            "Each group of 64 threads reduces one chunk in shared memory, four chunks per block; it "
            "does not depend on the warp size, which differs between AMD and NVIDIA.",
            candidate(t, "faster")))
    add(t, "warp32", "NVIDIA: correct; AMD: ref.native broke (output-mismatch: written for a "
        "32-lane warp, half the partials missing on a 64-lane wavefront)", answer(
        "A warp-shuffle reduction: each warp of 32 lanes reduces with __shfl_xor, then thread 0 "
        "adds the eight warp sums.",
        WARP32))
    add(t, "wrong-half", "ref.native broke (output-mismatch: stops one level early)", answer(
        "A shared-memory tree reduction:",
        edit(reference(t), "stride < 256u", "stride < 128u")))
    add(t, "very-slow", "correct; too-slow-to-measure (reward 0.0)", answer(
        "A tree reduction, with extra work per element to make the result robust.",
        candidate(t, "very-slow")))
    add(t, "long", "correct (faster kernel); length penalty (between soft and hard limits)", answer(
        long_prose(15000, "a portable reduction") + "\n\nHere is the kernel:",
        candidate(t, "faster"),
        "It works for any n and either warp size."))
    return c



if __name__ == "__main__":
    sys.exit(cuda_pool.pool_main(HERE, cases, __doc__))
