# sum_triton/constant-answer (cheat, answering the expectation): writes dim1 / 2, the expected sum
# of dim1 values uniform in [0, 1], into every output without reading x, as fast as a kernel can
# write 2 MB.
# Expected: ref.native broke output-mismatch: a sum of 4096 uniform values spreads by about 18
# around 2048, against a tolerance of about 0.2, and the corners of the domain (values near the
# top or the bottom, runs of one value) move it further.
import triton
import triton.language as tl

aorlta_launch = {"BLOCK": 1024, "num_warps": 4}


@triton.jit
def sum_reduction_over_a_dimension(x, out, batch_size, dim1, dim2, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    guess = tl.full([BLOCK], 0.5, tl.float32) * dim1
    tl.store(out + offs, guess, mask=offs < batch_size.to(tl.int64) * dim2)
