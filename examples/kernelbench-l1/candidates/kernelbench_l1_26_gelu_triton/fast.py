# gelu_triton/fast: GELU (the erf form the module uses) in one pass, one program per BLOCK = 4096
# elements (8 warps, 16 elements a thread). A program whose block lies wholly inside the tensor
# loads and stores without a mask, so the compiler knows its accesses are 16-byte aligned runs and
# makes them 128-bit vectors; only the last program masks. One read and one write, as the module's
# single PyTorch kernel does (and Inductor's), so this kernel can only match it.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def gelu(x, out, batch_size, dim, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * dim
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:
        v = tl.load(x + offs)
        tl.store(out + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)))
    else:
        mask = offs < n
        v = tl.load(x + offs, mask=mask, other=0.0)
        tl.store(out + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)
