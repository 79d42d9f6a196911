# mingptnewgelu_triton/wrong: the cubic term left out, tanh(sqrt(2/pi) x) for
# tanh(sqrt(2/pi) (x + 0.044715 x^3)): right near zero, where the cubic term is below the
# tolerance, wrong above about 0.27 (the typical draw and the top of the domain).
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 4096, "num_warps": 8}


@triton.jit
def mingptnewgelu(x, out, batch_size, BLOCK: tl.constexpr):
    n = batch_size.to(tl.int64) * batch_size
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask, other=0.0)
    u = 0.7978845608028654 * v
    tl.store(out + offs, 0.5 * v * (2.0 - 2.0 / (1.0 + tl.exp(2.0 * u))), mask=mask)
