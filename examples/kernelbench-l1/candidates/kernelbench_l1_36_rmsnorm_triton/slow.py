# rmsnorm_triton/slow: right but slow: a fixed grid of 132 programs of one warp each takes runs of
# 256 positions in turn and walks the 64 features twice (the sum of squares, then the outputs),
# one feature's 256 values a step with software pipelining off (num_stages = 1): the input read
# twice and about 135 KB of loads in flight on the whole GPU, far from what keeps HBM busy.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": [132, 1, 1]}


@triton.jit
def rmsnorm(x, out, batch_size, dim1, BLOCK: tl.constexpr):
    plane = dim1.to(tl.int64) * dim1
    runs = tl.cdiv(plane, BLOCK)
    for run in range(tl.program_id(0), batch_size * runs, tl.num_programs(0)):
        b = run // runs
        pos = (run % runs) * BLOCK + tl.arange(0, BLOCK)
        mask = pos < plane
        base = b * 64 * plane + pos
        acc = tl.zeros([BLOCK], tl.float32)
        for f in range(64):
            v = tl.load(x + base + f * plane, mask=mask, other=0.0)
            acc += v * v
        rms = tl.sqrt(acc / 64.0 + 1e-5)
        for f in range(64):
            v = tl.load(x + base + f * plane, mask=mask, other=0.0)
            tl.store(out + base + f * plane, v / rms, mask=mask)
