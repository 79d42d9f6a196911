# mingptnewgelu_triton/slow: right but slow: one program of 16 warps does all the work, 4096
# elements a step: one SM's worth of bandwidth for a tensor of 268 MB, where eager's kernels and
# Inductor's use them all.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 16, "grid": [1, 1, 1]}


@triton.jit
def mingptnewgelu(x, out, batch_size, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * batch_size
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x + offs, mask=mask, other=0.0)
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        tl.store(out + offs, 0.5 * v * (2.0 - 2.0 / (1.0 + tl.exp(2.0 * u))), mask=mask)
