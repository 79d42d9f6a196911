# softsign_triton/wrong: a 2-D grid, one program per row and tile of BLOCK = 256 columns, with
# the tiles per row counted as dim / BLOCK, rounded down, and no mask. Right when dim is a
# multiple of 256 (the timed size, 393216); at dim = 384 and 385 the columns from 256 on are never
# written and keep the harness's sentinel.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 2, "grid": ["batch_size", "dim / BLOCK", 1]}


@triton.jit
def softsign(x, out, batch_size, dim, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = row * dim + tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(out + offs, v / (1.0 + tl.abs(v)))
