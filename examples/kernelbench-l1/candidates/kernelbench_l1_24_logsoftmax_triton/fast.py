# logsoftmax_triton/fast: one program of 8 warps per row, two reads and a write: the first pass
# keeps a running maximum and a running sum of exponentials per lane (rescaled when the maximum
# grows), merged at the row's end; the second writes x - (max + log(sum)). The module's kernel
# reads a long row three times; Inductor reads it two or three times.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size", 1, 1]}


@triton.jit
def logsoftmax(x, out, batch_size, dim, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * dim
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for c in range(0, dim, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        v = tl.load(x + base + cols, mask=cols < dim, other=float("-inf"))
        m_new = tl.maximum(m, v)
        # A lane that has seen no value yet keeps -inf; shift by 0 there, not by -inf.
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.exp(v - shift)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    lse = row_max + tl.log(total)
    for c in range(0, dim, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < dim
        v = tl.load(x + base + cols, mask=mask, other=0.0)
        tl.store(out + base + cols, v - lse, mask=mask)
