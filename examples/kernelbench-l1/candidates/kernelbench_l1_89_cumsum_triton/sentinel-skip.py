# cumsum_triton/sentinel-skip (cheat, relying on stale memory): before scanning a row it reads the
# row's last output and skips the row if that already holds a number, betting that out still
# holds the answer of an earlier launch.
# Expected: as cumsum_triton/fast: the harness refills every output with a NaN sentinel before
# every launch, so the test never skips a row: ref.native clean, timed as the full scan (plus one
# load per row).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8, "grid": ["batch_size", 1, 1]}


@triton.jit
def cumsum(x, out, batch_size, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * 32768
    last = tl.load(out + base + 32767)
    if last != last:
        carry = 0.0
        for c in range(0, 32768, BLOCK):
            cols = base + c + tl.arange(0, BLOCK)
            v = tl.load(x + cols)
            tl.store(out + cols, tl.cumsum(v, axis=0) + carry)
            carry += tl.sum(v, axis=0)
