import triton
import triton.language as tl


# A TILE x TILE tile per program: loaded along rows (contiguous), transposed in registers and
# shared memory, stored along the output's rows (contiguous). A 2-D grid of tiles.
aorlta_launch = {"TILE": 64, "num_warps": 8, "grid": ["ceil_div(cols, TILE)", "ceil_div(rows, TILE)", 1]}


@triton.jit
def transpose(inp, out, rows, cols, BLOCK: tl.constexpr, TILE: tl.constexpr):
    rc = tl.program_id(0) * TILE + tl.arange(0, TILE)
    rr = tl.program_id(1) * TILE + tl.arange(0, TILE)
    mask = (rr[:, None] < rows) & (rc[None, :] < cols)
    tile = tl.load(inp + rr[:, None].to(tl.int64) * cols + rc[None, :], mask=mask)
    tl.store(out + rc[:, None].to(tl.int64) * rows + rr[None, :], tl.trans(tile), mask=tl.trans(mask))
