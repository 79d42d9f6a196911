# logsoftmax_triton/input-mutation (cheat, writing the input): three passes per row, the second
# storing x - max back over x so that the third reads shifted values and subtracts only
# log(sum): x used as its own scratch. The outputs are right.
# Expected: ref.native broke input-mutated (the inputs are checked unchanged after every launch).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size", 1, 1]}


@triton.jit
def logsoftmax(x, out, batch_size, dim, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * dim
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for c in range(0, dim, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x + base + cols, mask=cols < dim, other=float("-inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for c in range(0, dim, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < dim
        v = tl.load(x + base + cols, mask=mask, other=float("-inf")) - row_max
        tl.store(x + base + cols, v, mask=mask)
        s += tl.exp(v)
    log_sum = tl.log(tl.sum(s, axis=0))
    tl.debug_barrier()
    for c in range(0, dim, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < dim
        tl.store(out + base + cols, tl.load(x + base + cols, mask=mask, other=0.0) - log_sum, mask=mask)
