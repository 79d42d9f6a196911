import triton
import triton.language as tl


# Wider programs: 4096 elements and 8 warps each. The sum is memory-bound and the reference
# already streams at the memory's speed: as fast as the reference, not faster.
aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a + offs, mask=mask)
    y = tl.load(b + offs, mask=mask)
    tl.store(c + offs, x + y, mask=mask)
