import triton
import triton.language as tl


# Asks for 32 warps per program (1024 threads); the task allows at most 16: refused when it compiles.
aorlta_launch = {"num_warps": 32}


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)
