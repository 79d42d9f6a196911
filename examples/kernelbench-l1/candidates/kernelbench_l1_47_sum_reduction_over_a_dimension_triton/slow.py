# sum_triton/slow: right but slow: one program of one warp per batch index, taking its columns
# 256 at a time and walking dim1 one row a step with a single accumulator per column and software
# pipelining off (num_stages = 1): 128 programs with one 1 KB load each in flight, about 128 KB
# on the whole GPU, far from what keeps HBM busy.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 256, "num_warps": 1, "num_stages": 1, "grid": ["batch_size", 1, 1]}


@triton.jit
def sum_reduction_over_a_dimension(x, out, batch_size, dim1, dim2, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    base = x + b * dim1 * dim2
    for c in range(0, dim2, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < dim2
        acc = tl.zeros([BLOCK], tl.float32)
        for r in range(0, dim1):
            acc += tl.load(base + r * dim2 + cols, mask=mask, other=0.0)
        tl.store(out + b * dim2 + cols, acc, mask=mask)
