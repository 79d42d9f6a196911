import triton
import triton.language as tl


# Unrolls a million loads at compile time.
@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(1000000):
        acc += tl.load(a + offs + j, mask=mask)
    tl.store(c + offs, acc, mask=mask)
