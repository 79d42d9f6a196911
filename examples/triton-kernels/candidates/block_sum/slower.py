import triton
import triton.language as tl


# One warp per block, 8 elements at a time: 32 dependent steps per block instead of one tile.
aorlta_launch = {"num_warps": 1}


@triton.jit
def block_sum(inp, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([8], tl.float32)
    for j in range(0, BLOCK, 8):
        offs = pid * BLOCK + j + tl.arange(0, 8)
        acc += tl.load(inp + offs, mask=offs < n, other=0.0)
    tl.store(out + pid, tl.sum(acc, axis=0))
