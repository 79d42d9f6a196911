# swish_triton/wrong: sigmoid replaced by its tangent line at zero, 0.5 + x / 4, the kind of
# shortcut that looks right on a plot near the origin: x * sigmoid(x) differs from x * (0.5 + x/4)
# by about x^4 / 48, within the tolerance only for x below about 0.26. Right where the inputs are
# drawn near the bottom of the domain; wrong on the typical draw (by 0.02 at x = 1).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def swish(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask, other=0.0)
    tl.store(out + offs, v * (0.5 + 0.25 * v), mask=mask)
