import triton
import triton.language as tl


# One program per 256-element block of the input: out[i] is the sum of in[256 i .. 256 i + 255].
@triton.jit
def block_sum(inp, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(inp + offs, mask=offs < n, other=0.0)
    tl.store(out + pid, tl.sum(x, axis=0))
