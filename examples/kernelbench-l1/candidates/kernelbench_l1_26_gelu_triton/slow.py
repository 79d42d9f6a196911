# gelu_triton/slow: right but slow: a fixed grid of 132 programs of one warp each (one per SM of an
# H100) walks the tensor 256 elements a step, software pipelining off (num_stages = 1), so each
# program has one step's loads in flight: about 135 KB on the whole GPU, a small fraction of what
# it takes to keep HBM busy. Latency bound, not bandwidth bound.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": [132, 1, 1]}


@triton.jit
def gelu(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(tl.program_id(0).to(tl.int64) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x + offs, mask=mask, other=0.0)
        tl.store(out + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)
