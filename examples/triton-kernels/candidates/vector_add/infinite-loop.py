import triton
import triton.language as tl


# Never returns: a 64-bit counter that only grows, stored every turn so nothing removes the loop.
@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = n.to(tl.int64) + 1
    while k > 0:
        k += 1
        tl.store(c + offs, (tl.zeros([BLOCK], tl.int64) + k).to(tl.float32), mask=mask)
