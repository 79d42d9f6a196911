import triton
import triton.language as tl


# Right sums, and its input `a` overwritten with them.
@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask)
    tl.store(c + offs, s, mask=mask)
    tl.store(a + offs, s, mask=mask)
