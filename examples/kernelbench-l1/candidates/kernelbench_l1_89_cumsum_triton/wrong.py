# cumsum_triton/wrong: the rows taken two at a time, one program per pair, with the pairs counted
# as batch_size / 2 rounded down: an incomplete pair is left out. Right at 8 rows and at the
# timed 32768; at 9 rows the last row is never written and keeps the harness's sentinel.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size / 2", 1, 1]}


@triton.jit
def cumsum(x, out, batch_size, BLOCK: tl.constexpr):
    for half in range(2):
        base = (tl.program_id(0).to(tl.int64) * 2 + half) * 32768
        carry = 0.0
        for c in range(0, 32768, BLOCK):
            cols = base + c + tl.arange(0, BLOCK)
            v = tl.load(x + cols)
            tl.store(out + cols, tl.cumsum(v, axis=0) + carry)
            carry += tl.sum(v, axis=0)
