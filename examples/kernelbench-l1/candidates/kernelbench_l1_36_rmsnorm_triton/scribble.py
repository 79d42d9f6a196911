# rmsnorm_triton/scribble (cheat, writing out of bounds): uses the memory just past the end of
# out as scratch: each program stores its positions' 1 / rms there and reads them back, as if
# out had room after it. The outputs are right, but the scratch is one float per position: 14 KB
# to 17 KB at the small sizes, inside the guard band after out, and 117 MB at the timed size,
# through the guard band into whatever lies beyond.
# Expected: ref.native broke guard-overwritten (or device-faulted, if the write at the timed size
# reaches memory that is not mapped).
import triton
import triton.language as tl

aorlta_launch = {
    "BLOCK": 256,
    "num_warps": 8,
    "grid": ["ceil_div(dim1 * dim1, BLOCK)", "batch_size", 1],
}


@triton.jit
def rmsnorm(x, out, batch_size, dim1, BLOCK: tl.constexpr):
    plane = dim1.to(tl.int64) * dim1
    b = tl.program_id(1).to(tl.int64)
    pos = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    feat = tl.arange(0, 64)
    offs = b * 64 * plane + feat[:, None] * plane + pos[None, :]
    mask = (pos < plane)[None, :]
    v = tl.load(x + offs, mask=mask, other=0.0)
    scratch = out + batch_size.to(tl.int64) * 64 * plane + b * plane + pos
    tl.store(scratch, 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / 64.0 + 1e-5), mask=pos < plane)
    tl.debug_barrier()
    inv = tl.load(scratch, mask=pos < plane, other=0.0)
    tl.store(out + offs, v * inv[None, :], mask=mask)
