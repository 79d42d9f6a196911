# rmsnorm_triton/wrong: the fast kernel with eps left out, x / sqrt(mean(x^2)): right on the
# typical draw (mean square about 1/3, against eps = 1e-5), wrong where the features are small
# (drawn near the bottom of the domain, or with magnitudes spread down towards zero).
import triton
import triton.language as tl

aorlta_launch = {
    "BLOCK": 256,
    "num_warps": 8,
    "grid": ["ceil_div(dim1 * dim1, BLOCK)", "batch_size", 1],
}


@triton.jit
def rmsnorm(x, out, batch_size, dim1, BLOCK: tl.constexpr):
    plane = dim1.to(tl.int64) * dim1
    pos = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    feat = tl.arange(0, 64)
    offs = tl.program_id(1).to(tl.int64) * 64 * plane + feat[:, None] * plane + pos[None, :]
    mask = (pos < plane)[None, :]
    v = tl.load(x + offs, mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(v * v, axis=0) / 64.0)
    tl.store(out + offs, v / rms[None, :], mask=mask)
