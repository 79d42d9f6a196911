import triton
import triton.language as tl


# Correct, but each program's lanes are spread over the whole vector (element pid + j * programs):
# no two lanes of a warp touch the same cache line.
@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    programs = tl.num_programs(0)
    offs = tl.program_id(0) + tl.arange(0, BLOCK) * programs
    mask = offs < n
    x = tl.load(a + offs, mask=mask)
    y = tl.load(b + offs, mask=mask)
    tl.store(c + offs, x + y, mask=mask)
