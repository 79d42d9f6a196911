import triton
import triton.language as tl


# 64 x 64 tiles of c, 8 warps: four times the work per program, half the loads per product.
aorlta_launch = {"BM": 64, "BN": 64, "BK": 32, "num_warps": 8, "num_stages": 3}


@triton.jit
def matmul(a, b, c, m, n, k, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, k, BK):
        ka = k0 + rk
        x = tl.load(a + rm[:, None] * k + ka[None, :], mask=(rm[:, None] < m) & (ka[None, :] < k), other=0.0)
        y = tl.load(b + ka[:, None] * n + rn[None, :], mask=(ka[:, None] < k) & (rn[None, :] < n), other=0.0)
        acc += tl.dot(x, y, input_precision="ieee")
    tl.store(c + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))
