# cumsum_triton/fast: one program of 8 warps per row of 32768, taking the row in eight chunks of
# BLOCK = 4096 (the row length is a multiple of every BLOCK the task allows, so no mask): each
# chunk scanned by tl.cumsum (a tree within the program) plus the total of the chunks before it.
# One read and one write; PyTorch's scan along the innermost dimension runs near bandwidth or
# below it.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size", 1, 1]}


@triton.jit
def cumsum(x, out, batch_size, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * 32768
    carry = 0.0
    for c in range(0, 32768, BLOCK):
        cols = base + c + tl.arange(0, BLOCK)
        v = tl.load(x + cols)
        tl.store(out + cols, tl.cumsum(v, axis=0) + carry)
        carry += tl.sum(v, axis=0)
