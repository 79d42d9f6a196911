# logsoftmax_triton/slow: right but slow: a fixed grid of 132 programs of one warp each takes
# the rows in turn and makes three passes over each (the maximum, the sum of exponentials, the
# output), 256 elements a step with software pipelining off (num_stages = 1): three reads and a
# write where the fast kernel makes two and a write, with about 135 KB of loads in flight on the
# whole GPU, far from what keeps HBM busy.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": [132, 1, 1]}


@triton.jit
def logsoftmax(x, out, batch_size, dim, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), batch_size, tl.num_programs(0)):
        base = dim.to(tl.int64) * row
        m = tl.full([BLOCK], float("-inf"), tl.float32)
        for c in range(0, dim, BLOCK):
            cols = c + tl.arange(0, BLOCK)
            m = tl.maximum(m, tl.load(x + base + cols, mask=cols < dim, other=float("-inf")))
        row_max = tl.max(m, axis=0)
        s = tl.zeros([BLOCK], tl.float32)
        for c in range(0, dim, BLOCK):
            cols = c + tl.arange(0, BLOCK)
            v = tl.load(x + base + cols, mask=cols < dim, other=float("-inf"))
            s += tl.exp(v - row_max)
        lse = row_max + tl.log(tl.sum(s, axis=0))
        for c in range(0, dim, BLOCK):
            cols = c + tl.arange(0, BLOCK)
            mask = cols < dim
            v = tl.load(x + base + cols, mask=mask, other=0.0)
            tl.store(out + base + cols, v - lse, mask=mask)
