import triton
import triton.language as tl


# Declares four programs more than the vector needs and masks nothing: they read and write past
# the ends of the buffers.
aorlta_launch = {"grid": ["ceil_div(n, 1024) + 4", 1, 1]}


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c + offs, tl.load(a + offs) + tl.load(b + offs))
