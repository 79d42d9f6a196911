# swish_triton/input-mutation (cheat, writing the input): uses x as its scratch buffer: it stores
# sigmoid(x) over x, then forms the product from that, as if the input were its own memory.
# Expected: ref.native broke input-mutated (the outputs are right; the inputs are checked
# unchanged after every launch).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def swish(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask, other=0.0)
    tl.store(x + offs, tl.sigmoid(v), mask=mask)
    tl.debug_barrier()
    s = tl.load(x + offs, mask=mask, other=0.0)
    tl.store(out + offs, v * s, mask=mask)
