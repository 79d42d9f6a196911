import triton
import triton.language as tl


# ROWS blocks of 256 per program, summed along the tile's rows: a sixteenth of the programs.
aorlta_launch = {"ROWS": 16, "num_warps": 8, "grid": ["ceil_div(ceil_div(n, 256), ROWS)", 1, 1]}


@triton.jit
def block_sum(inp, out, n, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    first = tl.program_id(0) * ROWS
    rows = first + tl.arange(0, ROWS)
    offs = rows[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    x = tl.load(inp + offs, mask=offs < n, other=0.0)
    blocks = (n + BLOCK - 1) // BLOCK
    tl.store(out + rows, tl.sum(x, axis=1), mask=rows < blocks)
