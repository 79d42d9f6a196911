# logsoftmax_triton/wrong: the row in one tile of BLOCK = 4096 columns, as in Triton's softmax
# tutorial, with no loop over longer rows: right at dim = 384 and 385; at the timed dim of 393216
# only each row's first 4096 columns are written, normalised over those columns alone, and the
# rest keep the harness's sentinel (only the timed size's check catches it).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size", 1, 1]}


@triton.jit
def logsoftmax(x, out, batch_size, dim, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * dim
    cols = tl.arange(0, BLOCK)
    mask = cols < dim
    v = tl.load(x + base + cols, mask=mask, other=float("-inf"))
    row_max = tl.max(v, axis=0)
    lse = row_max + tl.log(tl.sum(tl.exp(v - row_max), axis=0))
    tl.store(out + base + cols, v - lse, mask=mask)
