# swish_triton/slow: right but slow: a fixed grid of 66 programs of one warp each (half the SMs of
# an H100) walks the tensor 256 elements a step with software pipelining off (num_stages = 1), so
# each program has one step's loads in flight: about 68 KB on the whole GPU, far from what keeps
# HBM busy. Latency bound, not bandwidth bound.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": [66, 1, 1]}


@triton.jit
def swish(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(tl.program_id(0).to(tl.int64) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x + offs, mask=mask, other=0.0)
        tl.store(out + offs, v * tl.sigmoid(v), mask=mask)
