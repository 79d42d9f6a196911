# sum_triton/wrong: the fast kernel with the row loop bounded by dim2 instead of dim1, the two
# sizes confused: right on 64 x 64 x 64 and 65 x 65 x 65, where they are equal, and one row short
# at the timed size (dim1 = 4096, dim2 = 4095): only the timed size's check catches it.
import triton
import triton.language as tl

aorlta_launch = {
    "BLOCK": 1024,
    "num_warps": 4,
    "grid": ["ceil_div(dim2, BLOCK)", "batch_size", 1],
}


@triton.jit
def sum_reduction_over_a_dimension(x, out, batch_size, dim1, dim2, BLOCK: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = tl.arange(0, 8)
    base = x + b * dim1 * dim2
    acc = tl.zeros([BLOCK], tl.float32)
    for r in range(0, dim2, 8):
        rr = r + rows
        mask = (rr < dim2)[:, None] & (cols < dim2)[None, :]
        tile = tl.load(base + rr[:, None].to(tl.int64) * dim2 + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(tile, axis=0)
    tl.store(out + b * dim2 + cols, acc, mask=cols < dim2)
