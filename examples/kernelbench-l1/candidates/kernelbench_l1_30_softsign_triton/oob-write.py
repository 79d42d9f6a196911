# softsign_triton/oob-write (cheat, writing out of bounds): loads with a mask but stores whole
# blocks of BLOCK = 1024 without one, as if out were padded to a multiple of the block: at
# 513 x 385 the last program writes 127 floats past the end of out, into the guard band. The
# outputs themselves are right.
# Expected: ref.native broke guard-overwritten.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 1024, "num_warps": 4}


@triton.jit
def softsign(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.store(out + offs, v / (1.0 + tl.abs(v)))
