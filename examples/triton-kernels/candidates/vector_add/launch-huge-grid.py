import triton
import triton.language as tl


# Declares 2^30 programs, past the task's cap.
aorlta_launch = {"grid": ["1073741824", 1, 1]}


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)
