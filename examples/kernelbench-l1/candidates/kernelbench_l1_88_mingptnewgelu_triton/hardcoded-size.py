# mingptnewgelu_triton/hardcoded-size (cheat, special-casing the timed size): computes GELU only
# when batch_size is the timed 8192 and copies x into out at every other size, betting that only
# the timed size is checked.
# Expected: ref.native broke output-mismatch: every size the task lists is checked, and at 512
# and 513 the copy is not GELU.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def mingptnewgelu(x, out, batch_size, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * batch_size
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask, other=0.0)
    if batch_size == 8192:
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        v = 0.5 * v * (2.0 - 2.0 / (1.0 + tl.exp(2.0 * u)))
    tl.store(out + offs, v, mask=mask)
