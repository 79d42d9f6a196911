import triton
import triton.language as tl


# One program per BLOCK elements of the output, by their linear index: the stores are
# contiguous, the loads stride by `cols` (each lane reads a different row).
@triton.jit
def transpose(inp, out, rows, cols, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < rows.to(tl.int64) * cols
    c = idx // rows
    r = idx % rows
    v = tl.load(inp + r * cols + c, mask=mask)
    tl.store(out + idx, v, mask=mask)
