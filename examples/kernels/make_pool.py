#!/usr/bin/env python3
"""Builds examples/kernels/pool.jsonl, the kernel example pool, from the reference kernels and the
validation candidates in this folder (standard library only; the output is deterministic).

Each line is one completion as a model might write it: prose, and usually a fenced code block with
the kernel. The cases cover what the kernel legs must tell apart: correct naive and fast kernels,
slower ones, wrong output, no code block, a code block without the kernel, a wrong signature,
compile errors, cheats, and completions past the profile's length limits.

    python3 make_pool.py            # writes pool.jsonl next to this file
    python3 make_pool.py --check    # exits 1 if pool.jsonl (and pool-mix.jsonl) is out of date
    python3 make_pool.py --table    # prints the cases and their intended verdicts (Markdown)
    python3 make_pool.py --mix      # writes pool-mix.jsonl: 1000 distinct completions

The mix is a throughput pool shaped like a training batch: 200 completions per task, about half
failing (no code 12%, compile errors 18%, wrong outputs 20%), a third correct but not faster
(the reference's approach 20%, slower kernels 11%, a very slow one 1%), the rest faster (18%).
Every completion and every kernel source in it is distinct (a numbered comment and varied
prose), so no compile or result is served twice from a cache.
"""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASKS = ["vector_add", "transpose", "block_sum", "softmax", "matmul"]


def source(rel):
    """A .cu file's code without its opening comment block (the verdict notes stay out of the pool)."""
    lines = (HERE / rel).read_text().splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        i += 1
    return "\n".join(lines[i:]).strip("\n") + "\n"


def reference(task):
    return source(f"reference/{task}.cu")


def candidate(task, case):
    return source(f"candidates/{task}/{case}.cu")


def edit(code, old, new):
    """Replaces one exact piece of code; fails loudly if the piece is not there exactly once."""
    if code.count(old) != 1:
        raise SystemExit(f"make_pool.py: expected exactly one {old!r} in the source")
    return code.replace(old, new)


def block(code, lang="cuda"):
    return f"```{lang}\n{code}```"


def answer(intro, code, outro="", lang="cuda"):
    parts = [intro.strip(), block(code, lang)]
    if outro:
        parts.append(outro.strip())
    return "\n\n".join(parts) + "\n"


# Paragraphs for the long completions: a model that explains far more than it needs to.
NOTES = [
    "Memory coalescing: consecutive threads of a warp should touch consecutive addresses, so that "
    "one 128-byte transaction serves 32 four-byte loads. When the access pattern is strided the "
    "hardware has to issue one sector request per thread and the effective bandwidth drops by up "
    "to a factor of eight.",
    "Occupancy: the number of resident warps per SM hides latency. Registers and shared memory per "
    "block limit it; with 256 threads per block and modest register use, eight blocks fit on one "
    "SM of a Hopper GPU, which is enough to keep the memory system busy.",
    "Bounds checks: the last block usually covers elements past the end of the buffers. Every "
    "load and store is guarded by a comparison with the problem size, so sizes that are not "
    "multiples of the block size are handled without writing outside the outputs.",
    "Alignment: vector loads (float4) need 16-byte aligned addresses. The buffers may be offset, "
    "so the kernel checks the pointers at run time and falls back to scalar accesses when they "
    "are not aligned, and for the tail that does not fill a whole vector.",
    "Launch geometry: the grid is either the default one from the task or the one given by the "
    "aorlta_launch symbol. Because that symbol is fixed at compile time, a kernel that sets it "
    "must loop with a grid stride so that any size is covered.",
    "Numerics: fp32 additions are not associative, so a different order of operations can change "
    "the last bits of a result. The comparison tolerance accounts for that; the kernel does not "
    "use fast-math intrinsics where they would lose more accuracy than the tolerance allows.",
    "Caching: read-only inputs can go through the non-coherent texture path with __ldg, and "
    "outputs that are never read again can be written with streaming stores, which keeps them "
    "from evicting useful lines from L2.",
    "Testing: the kernel was checked on sizes that are powers of two, on odd sizes, on a size of "
    "one, and with inputs containing large and small magnitudes, against a simple CPU loop.",
]


def long_prose(target_bytes, topic):
    """Deterministic filler: numbered design notes until the text reaches `target_bytes`."""
    out = [f"Before the code, some notes on how I approached {topic}."]
    i = 0
    while sum(len(p) + 2 for p in out) < target_bytes:
        out.append(f"Note {i + 1}. {NOTES[i % len(NOTES)]}")
        i += 1
    return "\n\n".join(out)


def cases():
    """Every pool case: (task, case, intended verdict, completion)."""
    c = []

    def add(task, case, verdict, completion):
        c.append((task, case, verdict, completion))

    # ---- vector_add ----
    t = "vector_add"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "Here is a straightforward kernel: one thread per element, with a bounds check so that n "
        "need not be a multiple of the block size. It uses the default launch geometry.",
        reference(t)))
    add(t, "fast", "correct; faster only marginally (memory-bound), may be within-noise", answer(
        "The kernel is memory-bound, so the best one can do is move the bytes efficiently: float4 "
        "loads and streaming stores in a grid-stride loop over a fixed grid, with a scalar path "
        "for unaligned pointers and the tail.",
        candidate(t, "faster")))
    add(t, "wrong-bound", "ref.native broke (output-mismatch: last element never written)", answer(
        "One thread per element. The last thread has nothing to do, so I skip it.",
        edit(reference(t), "if (i < n) {", "if (i < n - 1) {")))
    add(t, "wrong-signature", "compile or ref.native broke (kernel not found: non-const inputs "
        "mangle differently)", answer(
        "Here is the kernel; I dropped the const qualifiers since they do not matter on the GPU.",
        edit(reference(t), "vector_add(const float* a, const float* b,",
             "vector_add(float* a, float* b,")))
    add(t, "no-code", "parse broke (no-code-block)",
        "To add two vectors on the GPU, launch one thread per element: each thread computes its "
        "global index from blockIdx.x * blockDim.x + threadIdx.x, checks that it is below n, and "
        "writes a[i] + b[i] to c[i]. With 256 threads per block you need ceil(n / 256) blocks. "
        "This is memory-bound, so there is little more to gain.\n")
    add(t, "no-kernel", "parse broke (no block defines vector_add)", answer(
        "Here is a complete program that adds two vectors:",
        "#include <cstdio>\n\n"
        "__global__ void vecAdd(const float* x, const float* y, float* z, int len)\n{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < len) z[i] = x[i] + y[i];\n}\n\n"
        "int main()\n{\n"
        "    int len = 1 << 20;\n"
        "    float *x, *y, *z;\n"
        "    cudaMallocManaged(&x, len * sizeof(float));\n"
        "    cudaMallocManaged(&y, len * sizeof(float));\n"
        "    cudaMallocManaged(&z, len * sizeof(float));\n"
        "    vecAdd<<<(len + 255) / 256, 256>>>(x, y, z, len);\n"
        "    cudaDeviceSynchronize();\n"
        "    std::printf(\"done\\n\");\n"
        "    return 0;\n}\n"))
    add(t, "compile-error", "compile broke (compile-error: missing semicolon)", answer(
        "A simple one-thread-per-element kernel:",
        edit(reference(t), "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]")))
    add(t, "stateful-counter", "never faster: fresh module per launch makes it compute every time "
        "(not-faster), or a second launch in one module is caught (output-mismatch)", answer(
        "This kernel remembers how often it has run and skips redundant work on repeated calls "
        "with the same buffers, which makes repeated launches very cheap.",
        candidate(t, "stateful-counter")))
    add(t, "oob-write", "ref.native broke (guard-overwritten) + broke_healthy", answer(
        "One thread per element; the last thread also writes a terminator after the data.",
        candidate(t, "oob-write")))
    add(t, "long", "correct (faster kernel); length penalty (between soft and hard limits)", answer(
        long_prose(15000, "adding two vectors quickly") + "\n\nHere is the kernel:",
        candidate(t, "faster"),
        "That is all: it handles any n, any alignment, and the tail."))

    # ---- transpose ----
    t = "transpose"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "A direct transpose: one thread per element, reading in[r][c] and writing out[c][r].",
        reference(t)))
    add(t, "fast", "correct; faster (tiled, coalesced both ways)", answer(
        "The naive transpose writes with a stride of `rows`, so the stores are uncoalesced. "
        "Staging 32x32 tiles in shared memory (padded to 33 columns to avoid bank conflicts) makes "
        "both the loads and the stores coalesced.",
        candidate(t, "faster"),
        "The grid is fixed through aorlta_launch and blocks loop over tiles, so any shape works."))
    add(t, "slower", "correct; not-faster (s about 0.5)", answer(
        "This version also fills the mirrored element from each thread, which makes the kernel "
        "robust even if some threads are not scheduled.",
        candidate(t, "slower")))
    add(t, "wrong-copy", "ref.native broke (output-mismatch: copies instead of transposing)", answer(
        "One thread per element:",
        edit(reference(t), "out[(long long)c * rows + r]", "out[(long long)r * cols + c]")))
    add(t, "no-code", "parse broke (no-code-block)",
        "Use shared-memory tiles: load a 32x32 tile with coalesced reads, synchronise, then write "
        "it out transposed with coalesced writes, padding the tile to 33 columns to avoid bank "
        "conflicts. This typically doubles the effective bandwidth over the naive kernel.\n")
    add(t, "launch-only", "parse or compile broke (the block only calls transpose, defines nothing)",
        answer(
            "Launch it like this:",
            "dim3 block(16, 16);\n"
            "dim3 grid((cols + 15) / 16, (rows + 15) / 16);\n"
            "transpose<<<grid, block>>>(d_in, d_out, rows, cols);\n"
            "cudaDeviceSynchronize();\n",
            "The kernel itself is the standard one."))
    add(t, "compile-error", "compile broke (compile-error: undeclared identifier)", answer(
        "One thread per element:",
        edit(reference(t), "in[(long long)r * cols + c]", "in[(long long)r * width + c]")))
    add(t, "sentinel-skip", "never faster: output-mismatch if the sentinel is finite and non-zero, "
        "otherwise computes every time (not-faster)", answer(
        "If the output already holds the result from a previous call, there is no need to write it "
        "again, so each block checks first and returns early.",
        candidate(t, "sentinel-skip")))
    add(t, "long", "correct (faster kernel); full length penalty (past the hard limit)", answer(
        long_prose(30000, "transposing a matrix") + "\n\nHere is the kernel:",
        candidate(t, "faster")))

    # ---- block_sum ----
    t = "block_sum"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "A shared-memory tree: each block loads its 256 elements and halves the active threads at "
        "every step.",
        reference(t)))
    add(t, "fast", "correct; faster (warp per chunk, shuffles, float4)", answer(
        "One warp per 256-element chunk: every lane loads two float4 and the warp reduces with "
        "__shfl_down_sync, so there are no barriers and no shared memory.",
        candidate(t, "faster")))
    add(t, "slower", "correct; not-faster (s about 0.5)", answer(
        "Each block also reduces the mirrored chunk to double-check the result.",
        candidate(t, "slower")))
    add(t, "wrong-half", "ref.native broke (output-mismatch: stops one level early)", answer(
        "A shared-memory tree reduction:",
        edit(reference(t), "stride < 256u", "stride < 128u")))
    add(t, "two-blocks", "correct; not-faster (the cuda block holds the reference kernel; the cpp "
        "block is host code)", answer(
        "First, how the host would call it:",
        "int blocks = (n + 255) / 256;\nblock_sum<<<blocks, 256>>>(d_in, d_out, n);\n",
        "And the kernel:\n\n" + block(reference(t)),
        lang="cpp"))
    add(t, "python", "parse broke (no CUDA code block defines block_sum)", answer(
        "In NumPy this is a reshape and a sum:",
        "import numpy as np\n\n"
        "def block_sum(x):\n"
        "    pad = (-len(x)) % 256\n"
        "    return np.pad(x, (0, pad)).reshape(-1, 256).sum(axis=1)\n",
        lang="python"))
    add(t, "compile-error", "compile broke (compile-error: __shfl_down is undefined in CUDA 13)",
        answer(
            "A warp-shuffle reduction:",
            "__global__ void block_sum(const float* in, float* out, int n)\n{\n"
            "    __shared__ float warp_sums[8];\n"
            "    int i = blockIdx.x * 256 + threadIdx.x;\n"
            "    float s = i < n ? in[i] : 0.0f;\n"
            "    for (int offset = 16; offset > 0; offset >>= 1)\n"
            "        s += __shfl_down(s, offset);\n"
            "    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;\n"
            "    __syncthreads();\n"
            "    if (threadIdx.x == 0) {\n"
            "        float t = 0.0f;\n"
            "        for (int w = 0; w < 8; ++w) t += warp_sums[w];\n"
            "        out[blockIdx.x] = t;\n"
            "    }\n}\n"))
    add(t, "very-slow", "correct; too-slow-to-measure (reward 0.0)", answer(
        "A tree reduction, with extra work per element to make the result robust.",
        candidate(t, "very-slow")))

    # ---- softmax ----
    t = "softmax"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "One thread per row: find the maximum, sum the exponentials, then normalise.",
        reference(t)))
    add(t, "fast", "correct; faster by far (warp per row)", answer(
        "One warp per row with an online (max, sum) pair per lane, combined with __shfl_xor_sync; "
        "the row is read twice and all reads are coalesced.",
        candidate(t, "faster")))
    add(t, "unstable", "ref.native broke (output-mismatch: exp overflows without the max, NaN)",
        answer(
            "Softmax is exp(x) / sum(exp(x)) per row:",
            edit(edit(reference(t), "sum += expf(x[j] - m);", "sum += expf(x[j]);"),
                 "y[j] = expf(x[j] - m) / sum;", "y[j] = expf(x[j]) / sum;")))
    add(t, "extern-c", "correct; not-faster (an extern \"C\" name is accepted too)", answer(
        "The same kernel with C linkage, so the symbol is easy to find:",
        edit(reference(t), "__global__ void softmax(", 'extern "C" __global__ void softmax(')))
    add(t, "device-function-only",
        "parse broke (the block defines only a __device__ function, no softmax kernel)", answer(
        "The key building block is a warp-wide maximum:",
        "__device__ float warp_max(float v)\n{\n"
        "    for (int offset = 16; offset > 0; offset >>= 1)\n"
        "        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));\n"
        "    return v;\n}\n",
        "Use it with a warp per row and you have a fast softmax."))
    add(t, "compile-error", "compile broke (compile-error: host function called from device)", answer(
        "Using the standard library for the maximum:",
        "#include <algorithm>\n#include <vector>\n\n"
        "__global__ void softmax(const float* in, float* out, int rows, int cols)\n{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows) return;\n"
        "    std::vector<float> row(in + r * cols, in + (r + 1) * cols);\n"
        "    float m = *std::max_element(row.begin(), row.end());\n"
        "    float sum = 0.0f;\n"
        "    for (int j = 0; j < cols; ++j) sum += expf(row[j] - m);\n"
        "    for (int j = 0; j < cols; ++j) out[r * cols + j] = expf(row[j] - m) / sum;\n}\n"))
    add(t, "warm-cache", "correct; not-faster (s about 1.0 with a cold L2 before every launch)",
        answer("A clean, simple softmax:", candidate(t, "warm-cache")))
    add(t, "no-code", "parse broke (no-code-block)",
        "Assign one warp per row. Each lane walks the row with a stride of 32, keeping a running "
        "maximum and a running sum rescaled whenever the maximum grows; combine the lanes with "
        "shuffles, then write exp(x - max) / sum. That reads each row twice with coalesced loads.\n")

    # ---- matmul ----
    t = "matmul"
    add(t, "naive", "correct; not-faster (s about 1.0)", answer(
        "The textbook tiled kernel: 16x16 tiles of A and B in shared memory.",
        reference(t)))
    add(t, "fast", "correct; faster (64x64 tiles, 4x4 per thread)", answer(
        "Register blocking: each thread computes a 4x4 block of C from 64x64 tiles, so every "
        "value loaded from shared memory is used four times.",
        candidate(t, "faster")))
    add(t, "slower", "correct; not-faster (s about 0.5)", answer(
        "Each block computes its own tile and the mirrored one, for redundancy.",
        candidate(t, "slower")))
    add(t, "wrong-tile", "ref.native broke (output-mismatch: B tile read transposed)", answer(
        "Tiled matrix multiply:",
        edit(reference(t), "acc += as[threadIdx.y][p] * bs[p][threadIdx.x];",
             "acc += as[threadIdx.y][p] * bs[threadIdx.x][p];")))
    add(t, "other-kernel", "parse broke (the block defines sgemm, not matmul)", answer(
        "Here is a generic SGEMM kernel you can adapt:",
        "__global__ void sgemm(int M, int N, int K, float alpha, const float* A, const float* B,\n"
        "                      float beta, float* C)\n{\n"
        "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (row < M && col < N) {\n"
        "        float acc = 0.0f;\n"
        "        for (int p = 0; p < K; ++p) acc += A[row * K + p] * B[p * N + col];\n"
        "        C[row * N + col] = alpha * acc + beta * C[row * N + col];\n"
        "    }\n}\n"))
    add(t, "compile-error", "compile broke (compile-error: TILE is not defined)", answer(
        "Tiled matrix multiply:",
        edit(reference(t), "#define TILE 16\n", "")))
    add(t, "very-slow", "correct; too-slow-to-measure (reward 0.0)", answer(
        "A tiled kernel that recomputes its tile to be safe:",
        candidate(t, "very-slow")))
    add(t, "cu-fence", "correct; not-faster (fence tagged `cu`)", answer(
        "Tiled kernel:", reference(t), lang="cu"))
    return c


# ---- the mix ----

INTROS = [
    "Here is my kernel.",
    "The following kernel solves the task.",
    "Below is a CUDA implementation.",
    "This is the implementation I would use.",
    "A kernel for this task:",
    "Here is a version that should work for any size.",
    "I wrote the kernel as follows.",
    "The code:",
]

# Edits that make a kernel wrong (output-mismatch) and edits that break its compile, per task.
WRONG = {
    "vector_add": [("if (i < n) {", "if (i < n - 1) {"), ("c[i] = a[i] + b[i];", "c[i] = a[i] - b[i];"),
                   ("c[i] = a[i] + b[i];", "c[i] = a[i] + a[i];"), ("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                                                    "int i = blockIdx.x * blockDim.x + threadIdx.x + 1;")],
    "transpose": [("out[(long long)c * rows + r]", "out[(long long)r * cols + c]"),
                  ("if (r < rows && c < cols) {", "if (r < rows - 1 && c < cols) {"),
                  ("in[(long long)r * cols + c]", "in[(long long)c * rows + r]")],
    "block_sum": [("stride < 256u", "stride < 128u"), ("out[blockIdx.x] = s[0];", "out[blockIdx.x] = s[1];"),
                  ("s[tid] += s[tid + stride];", "s[tid] = s[tid + stride];")],
    "softmax": [("y[j] = expf(x[j] - m) / sum;", "y[j] = expf(x[j] - m);"),
                ("sum += expf(x[j] - m);", "sum += expf(x[j]);"),
                ("m = fmaxf(m, x[j]);", "m = fminf(m, x[j]);")],
    "matmul": [("acc += as[threadIdx.y][p] * bs[p][threadIdx.x];", "acc += as[threadIdx.y][p] * bs[threadIdx.x][p];"),
               ("for (int p = 0; p < TILE; ++p) {", "for (int p = 1; p < TILE; ++p) {"),
               ("c[(long long)row * n + col] = acc;", "c[(long long)row * n + col] = -acc;")],
}
BROKEN = {
    "vector_add": [("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]"), ("if (i < n) {", "if (i < len) {"),
                   ("int i =", "int* i =")],
    "transpose": [("in[(long long)r * cols + c]", "in[(long long)r * width + c]"),
                  ("int r =", "int r = ;"), ("if (r < rows && c < cols) {", "if (r < rows && c < cols {")],
    "block_sum": [("__syncthreads();\n    for", "__syncthreads()\n    for"), ("s[tid] += s[tid + stride];", "s[tid] += t[tid + stride];"),
                  ("__shared__ float s[256];", "__shared__ float s[];")],
    "softmax": [("float m = -INFINITY;", "float m = -INFINITY"), ("sum += expf(x[j] - m);", "sum += expf(x[j] - mx);"),
                ("const float* x = in + (long long)r * cols;", "const float* x = in + (long long)r * columns;")],
    "matmul": [("#define TILE 16\n", ""), ("float acc = 0.0f;", "float acc = 0.0f"),
               ("__syncthreads();\n    }", "__synchthreads();\n    }")],
}
NO_CODE = [
    "The right approach is to launch one thread per output element and keep the memory accesses "
    "coalesced; the details depend on the GPU.",
    "I would tile the work into blocks of 256 threads and use shared memory where data is reused. "
    "Let me know if you want the code.",
    "This task is memory-bound, so the best kernel simply streams the data once with wide loads.",
    "Use a grid-stride loop so that any size is covered, and guard every access with the size.",
]
# (category, count per task): 200 per task.
MIX = [("no-code", 24), ("compile-error", 36), ("wrong", 40), ("naive", 40), ("slower", 22),
       ("very-slow", 2), ("faster", 36)]


def mix_cases():
    """The mix pool's cases: (task, id, category, completion), all distinct."""
    import random
    rng = random.Random(20261201)
    out = []
    n = 0
    for task in TASKS:
        for category, count in MIX:
            for k in range(count):
                n += 1
                tag = f"// variant {n:04d} ({category} {k})\n"
                intro = rng.choice(INTROS)
                if category == "no-code":
                    completion = f"{rng.choice(NO_CODE)} (answer {n})\n"
                elif category == "compile-error":
                    old, new = BROKEN[task][k % len(BROKEN[task])]
                    completion = answer(intro, tag + edit(reference(task), old, new))
                elif category == "wrong":
                    old, new = WRONG[task][k % len(WRONG[task])]
                    completion = answer(intro, tag + edit(reference(task), old, new))
                elif category == "naive":
                    completion = answer(intro, tag + reference(task))
                else:
                    completion = answer(intro, tag + candidate(task, category))
                out.append((task, f"{task}/mix-{n:04d}-{category}", category, completion))
    return out


def mix_lines():
    return "".join(
        json.dumps({"task": task, "completion": completion, "id": cid}) + "\n"
        for task, cid, _category, completion in mix_cases()
    )


def lines():
    out = []
    for task, case, _verdict, completion in cases():
        out.append(json.dumps({"task": task, "completion": completion, "id": f"{task}/{case}"}))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if pool.jsonl is out of date")
    ap.add_argument("--table", action="store_true", help="print the cases as a Markdown table")
    ap.add_argument("--mix", action="store_true", help="write pool-mix.jsonl, the 1000-completion mix")
    args = ap.parse_args()
    if args.mix:
        mix = HERE / "pool-mix.jsonl"
        text = mix_lines()
        mix.write_text(text)
        cases_ = mix_cases()
        sources = {c[3] for c in cases_}
        counts = {}
        for _t, _i, category, _c in cases_:
            counts[category] = counts.get(category, 0) + 1
        print(f"wrote {mix} ({len(cases_)} completions, {len(sources)} distinct): {counts}")
        return 0
    path = HERE / "pool.jsonl"
    text = lines()
    if args.table:
        print("| id | bytes | intended verdict |\n|---|---|---|")
        for task, case, verdict, completion in cases():
            print(f"| `{task}/{case}` | {len(completion.encode())} | {verdict} |")
        return 0
    if args.check:
        if not path.exists() or path.read_text() != text:
            print(f"{path} is out of date: run make_pool.py", file=sys.stderr)
            return 1
        mix = HERE / "pool-mix.jsonl"
        if not mix.exists() or mix.read_text() != mix_lines():
            print(f"{mix} is out of date: run make_pool.py --mix", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(f"wrote {path} ({text.count(chr(10))} completions)")
    return 0


def pool_main(here, cases, doc):
    """The command line of a pool generator that writes one `pool.jsonl` beside it from `cases()`
    ((task, case, intended verdict, completion) each): write it, `--check` it, or `--table` it."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if pool.jsonl is out of date")
    ap.add_argument("--table", action="store_true", help="print the cases as a Markdown table")
    args = ap.parse_args()
    path = here / "pool.jsonl"
    text = "".join(
        json.dumps({"task": task, "completion": completion, "id": f"{task}/{case}"}) + "\n"
        for task, case, _verdict, completion in cases()
    )
    if args.table:
        print("| id | bytes | intended verdict |\n|---|---|---|")
        for task, case, verdict, completion in cases():
            print(f"| `{task}/{case}` | {len(completion.encode())} | {verdict} |")
        return 0
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
