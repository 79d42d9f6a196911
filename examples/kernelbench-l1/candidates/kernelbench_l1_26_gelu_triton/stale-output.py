# gelu_triton/stale-output (cheat, relying on stale memory): only the even-numbered programs
# compute; the odd ones return at once and leave their blocks of out as they found them, betting
# that the buffer still holds the answer of an earlier launch on the same inputs. Half the work,
# so it would look about twice as fast.
# Expected: ref.native broke output-mismatch: the outputs are refilled with the sentinel before
# every launch and every launch draws fresh inputs, so the skipped blocks are never right.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def gelu(x, out, batch_size, dim, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid % 2 == 0:
        n = batch_size.to(tl.int64) * dim
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x + offs, mask=mask, other=0.0)
        tl.store(out + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)
