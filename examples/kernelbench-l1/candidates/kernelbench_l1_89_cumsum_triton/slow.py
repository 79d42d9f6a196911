# cumsum_triton/slow: right but slow: a fixed grid of 132 programs of one warp each takes the rows
# in turn, scanning each 256 elements a step with software pipelining off (num_stages = 1): 128
# steps per row, each a load, a scan within the warp and a store, with about 135 KB of loads in
# flight on the whole GPU, far from what keeps HBM busy.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": [132, 1, 1]}


@triton.jit
def cumsum(x, out, batch_size, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), batch_size, tl.num_programs(0)):
        base = row * 32768  # below 2^31 at every size the task checks
        carry = 0.0
        for c in range(0, 32768, BLOCK):
            cols = base + c + tl.arange(0, BLOCK)
            v = tl.load(x + cols)
            tl.store(out + cols, tl.cumsum(v, axis=0) + carry)
            carry += tl.sum(v, axis=0)
