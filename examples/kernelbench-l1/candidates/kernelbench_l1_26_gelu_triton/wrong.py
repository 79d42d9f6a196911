# gelu_triton/wrong: the fast kernel launched on whole blocks only: its grid is the number of
# elements divided by BLOCK = 4096, rounded down, and its stores carry no mask. Right whenever
# batch_size * dim is a multiple of 4096 (the timed size and 512 x 384); at 513 x 385 the last 897
# elements are never written and keep the harness's sentinel.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size * dim / BLOCK", 1, 1]}


@triton.jit
def gelu(x, out, batch_size, dim, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(out + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)))
