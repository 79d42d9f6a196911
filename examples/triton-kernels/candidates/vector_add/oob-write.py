import triton
import triton.language as tl


# One element past the end of `c`: the mask is off by one.
@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(a + offs, mask=offs < n, other=0.0)
    y = tl.load(b + offs, mask=offs < n, other=0.0)
    tl.store(c + offs, x + y, mask=offs <= n)
