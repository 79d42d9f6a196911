"""The library's tasks as data: one entry per task, from which make_library.py writes the task
files, the wrong candidates, the validation suite and the index (standard library only).

Each entry: id, category, the C++ signature, the buffers (name, dtype, length expression, role,
input law, special values), the sizes (the first is timed), the default launch geometry of the
reference, the tolerance and why, the operator's definition and layout, what the reference does
and what a good kernel should reach, the one edit that makes the reference wrong (and what the
wrong kernel then gets wrong), and how the faster candidate is judged (`ratio` 1.0 for the
memory-bound ones whose honest gain is a few tens of per cent).
"""


def buf(name, dtype, length, role, init=None, special=None):
    return {"name": name, "dtype": dtype, "len": length, "role": role, "init": init, "special": special or []}


def uni(lo, hi):
    return ("uniform", lo, hi)


def nrm(mean, std):
    return ("normal", mean, std)


F = "f32"
ROW = "Default launch: one block per row"

TASKS = [
    # ---------------------------------------------------------------- matrix products
    dict(
        id="mm_square", category="matrix product",
        signature="void mm_square(const float* a, const float* b, float* c, int n)",
        buffers=[buf("a", F, "n * n", "in", uni(-1, 1)), buf("b", F, "n * n", "in", uni(-1, 1)), buf("c", F, "n * n", "out")],
        scalars={"n": "n"},
        sizes=[{"n": 1024}, {"n": 33}, {"n": 77}],
        grid=["ceil_div(n, 16)", "ceil_div(n, 16)", "1"], block=["16", "16", "1"],
        tol=(1e-3, 1e-4, "n products accumulated in fp32 in any order differ by a few units in the last place of the partial sums"),
        definition="multiplies two square matrices of 32-bit floats: C = A * B, all n x n and row-major, "
        "c[i*n + j] = sum over p of a[i*n + p] * b[p*n + j]. Accumulate in fp32 (no TF32 or lower precision).",
        reference="is the textbook shared-memory kernel: 16 x 16 tiles, one output per thread",
        good="register blocking (each thread several outputs, e.g. 64 x 64 tiles with 4 x 4 per thread) reaches about 1.5-2.5x; a tuned fp32 kernel about 3-4x",
        wrong=("acc += as[threadIdx.y][p] * bs[p][threadIdx.x];", "acc += as[threadIdx.y][p] * bs[threadIdx.x][p];",
               "reads the B tile transposed (a classic indexing slip)"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="mm_tall_skinny", category="matrix product",
        signature="void mm_tall_skinny(const float* a, const float* b, float* c, int m, int n, int k)",
        buffers=[buf("a", F, "m * k", "in", uni(-1, 1)), buf("b", F, "k * n", "in", uni(-1, 1)), buf("c", F, "m * n", "out")],
        scalars={"m": "m", "n": "n", "k": "k"},
        sizes=[{"m": 65536, "n": 32, "k": 256}, {"m": 1000, "n": 7, "k": 33}, {"m": 129, "n": 1, "k": 300}],
        grid=["ceil_div(n, 16)", "ceil_div(m, 16)", "1"], block=["16", "16", "1"],
        tol=(1e-3, 1e-4, "k products accumulated in fp32 in any order differ by a few units in the last place of the partial sums"),
        definition="multiplies a tall matrix by a narrow one, 32-bit floats: C = A * B with A m x k (m large), "
        "B k x n (n small), C m x n, all row-major: c[i*n + j] = sum over p of a[i*k + p] * b[p*n + j]. "
        "Accumulate in fp32.",
        reference="is the textbook 16 x 16 shared-memory tiled kernel, one output per thread",
        good="tiles shaped to the narrow B (e.g. 128 x 32 per block, 4 x 4 outputs per thread) reach about 1.2x",
        wrong=("for (int t = 0; t < k; t += TILE) {", "for (int t = 0; t + TILE <= k; t += TILE) {",
               "drops the last partial tile of k, so it is right only when k is a multiple of 16 (the odd sizes catch it)"),
        fake_wrong="hardcoded-size", ratio=1.1,
    ),
    dict(
        id="mm_batched", category="matrix product",
        signature="void mm_batched(const float* a, const float* b, float* c, int batch, int m, int n, int k)",
        buffers=[buf("a", F, "batch * m * k", "in", uni(-1, 1)), buf("b", F, "batch * k * n", "in", uni(-1, 1)),
                 buf("c", F, "batch * m * n", "out")],
        scalars={"batch": "batch", "m": "m", "n": "n", "k": "k"},
        sizes=[{"batch": 64, "m": 128, "n": 128, "k": 128}, {"batch": 3, "m": 33, "n": 17, "k": 65},
               {"batch": 5, "m": 1, "n": 40, "k": 7}],
        grid=["ceil_div(n, 16)", "ceil_div(m, 16)", "batch"], block=["16", "16", "1"],
        tol=(1e-3, 1e-4, "k products accumulated in fp32 in any order differ by a few units in the last place of the partial sums"),
        definition="computes a batch of independent matrix products of 32-bit floats: C[z] = A[z] * B[z] for "
        "z < batch, A[z] m x k, B[z] k x n, C[z] m x n, each row-major and stored one after another "
        "(A[z] starts at a + z*m*k): c[z*m*n + i*n + j] = sum over p of a[z*m*k + i*k + p] * b[z*k*n + p*n + j]. "
        "Accumulate in fp32.",
        reference="is the textbook 16 x 16 shared-memory tiled kernel, one output per thread, one grid z per matrix",
        good="register blocking (64 x 64 tiles, 4 x 4 outputs per thread) reaches about 1.5-2.5x",
        wrong=("const float* B = b + z * k * n;", "const float* B = b;",
               "multiplies every A[z] by the first B"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="mm_nt", category="matrix product",
        signature="void mm_nt(const float* a, const float* b, float* c, int m, int n, int k)",
        buffers=[buf("a", F, "m * k", "in", uni(-1, 1)), buf("b", F, "n * k", "in", uni(-1, 1)), buf("c", F, "m * n", "out")],
        scalars={"m": "m", "n": "n", "k": "k"},
        sizes=[{"m": 2048, "n": 1024, "k": 512}, {"m": 65, "n": 33, "k": 17}, {"m": 100, "n": 7, "k": 129}],
        grid=["ceil_div(n, 16)", "ceil_div(m, 16)", "1"], block=["16", "16", "1"],
        tol=(1e-3, 1e-4, "k products accumulated in fp32 in any order differ by a few units in the last place of the partial sums"),
        definition="multiplies a matrix by the transpose of another, 32-bit floats (a linear layer's y = x W^T): "
        "C = A * B^T with A m x k, B n x k, C m x n, all row-major: c[i*n + j] = sum over p of a[i*k + p] * b[j*k + p]. "
        "Accumulate in fp32.",
        reference="is the textbook 16 x 16 shared-memory tiled kernel (both tiles read along k, B's stored transposed), one output per thread",
        good="register blocking (64 x 64 tiles, 4 x 4 outputs per thread) reaches about 1.5-2.5x",
        wrong=("bs[threadIdx.x][threadIdx.y] = (brow < n", "bs[threadIdx.y][threadIdx.x] = (brow < n",
               "stores B's tile without transposing it"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- convolutions
    dict(
        id="conv2d_3x3", category="convolution",
        signature="void conv2d_3x3(const float* x, const float* wt, float* y, int batch, int cin, int cout, int h, int w)",
        buffers=[buf("x", F, "batch * cin * h * w", "in", uni(-1, 1)), buf("wt", F, "cout * cin * 9", "in", uni(-1, 1)),
                 buf("y", F, "batch * cout * h * w", "out")],
        scalars={"batch": "batch", "cin": "cin", "cout": "cout", "h": "h", "w": "w"},
        sizes=[{"batch": 8, "cin": 64, "cout": 64, "h": 56, "w": 56}, {"batch": 1, "cin": 3, "cout": 5, "h": 17, "w": 33},
               {"batch": 2, "cin": 7, "cout": 9, "h": 1, "w": 5}],
        grid=["ceil_div(w, 16)", "ceil_div(h, 16)", "batch * cout"], block=["16", "16", "1"],
        tol=(1e-3, 1e-4, "cin * 9 products accumulated in fp32 in any order"),
        definition="computes a 2-D convolution as deep-learning frameworks define it (cross-correlation: the "
        "kernel is not flipped), 3 x 3 kernel, stride 1, zero padding 1, 32-bit floats in NCHW layout: "
        "x is (batch, cin, h, w), wt is (cout, cin, 3, 3), y is (batch, cout, h, w), all row-major, and "
        "y[b][o][i][j] = sum over c < cin, di < 3, dj < 3 of x[b][c][i+di-1][j+dj-1] * wt[o][c][di][dj], "
        "where x outside the image counts as 0.",
        reference="is the direct kernel: one output per thread, inputs and weights read through the caches",
        good="sharing each input read across several output channels (a shared-memory input tile, 8 output channels per thread) reaches about 1.8x",
        wrong=("acc += xp[(long long)ii * w + jj] * wp[di * 3 + dj];", "acc += xp[(long long)ii * w + jj] * wp[8 - (di * 3 + dj)];",
               "flips the kernel (a true convolution, not the cross-correlation asked for)"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="dwconv2d_3x3", category="convolution",
        signature="void dwconv2d_3x3(const float* x, const float* wt, float* y, int batch, int ch, int h, int w)",
        buffers=[buf("x", F, "batch * ch * h * w", "in", uni(-1, 1)), buf("wt", F, "ch * 9", "in", uni(-1, 1)),
                 buf("y", F, "batch * ch * h * w", "out")],
        scalars={"batch": "batch", "ch": "ch", "h": "h", "w": "w"},
        sizes=[{"batch": 16, "ch": 64, "h": 112, "w": 112}, {"batch": 3, "ch": 5, "h": 17, "w": 33}, {"batch": 1, "ch": 2, "h": 40, "w": 1}],
        grid=["ceil_div(w, 32)", "ceil_div(h, 8)", "batch * ch"], block=["32", "8", "1"],
        tol=(1e-5, 1e-4, "nine products accumulated in fp32 in any order"),
        definition="computes a depthwise 2-D convolution (one 3 x 3 filter per channel, no mixing across "
        "channels; cross-correlation, not flipped), stride 1, zero padding 1, 32-bit floats in NCHW layout: "
        "x and y are (batch, ch, h, w), wt is (ch, 3, 3), all row-major, and "
        "y[b][c][i][j] = sum over di < 3, dj < 3 of x[b][c][i+di-1][j+dj-1] * wt[c][di][dj], where x outside "
        "the image counts as 0.",
        reference="computes one output per thread (threads along a row, coalesced), nine reads through the caches; it is memory-bound already",
        good="reusing loaded rows for several outputs per thread reaches about 1.7x; the bound is reading x and writing y once",
        wrong=("for (int dj = 0; dj < 3; ++dj) {", "for (int dj = 0; dj < 2; ++dj) {",
               "forgets the window's third column (an off-by-one bound)"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="conv1d", category="convolution",
        signature="void conv1d(const float* x, const float* wt, float* y, int batch, int cin, int cout, int len)",
        buffers=[buf("x", F, "batch * cin * len", "in", uni(-1, 1)), buf("wt", F, "cout * cin * 7", "in", uni(-1, 1)),
                 buf("y", F, "batch * cout * len", "out")],
        scalars={"batch": "batch", "cin": "cin", "cout": "cout", "len": "len"},
        sizes=[{"batch": 8, "cin": 64, "cout": 64, "len": 4096}, {"batch": 3, "cin": 5, "cout": 17, "len": 100},
               {"batch": 1, "cin": 9, "cout": 3, "len": 2}],
        grid=["ceil_div(len, 256)", "batch * cout", "1"], block=["256", "1", "1"],
        tol=(1e-3, 1e-4, "cin * 7 products accumulated in fp32 in any order"),
        definition="computes a 1-D convolution over sequences (cross-correlation, not flipped), kernel width 7, "
        "stride 1, zero padding 3, 32-bit floats: x is (batch, cin, len), wt is (cout, cin, 7), y is "
        "(batch, cout, len), all row-major, and y[b][o][t] = sum over c < cin, d < 7 of x[b][c][t+d-3] * wt[o][c][d], "
        "where x outside the sequence counts as 0.",
        reference="is the direct kernel: one output per thread (threads along t, coalesced), weights and inputs read through the caches",
        good="sharing each input read across several output channels (shared-memory tiles of x and wt, 8 output channels per thread) reaches about 2-4x",
        wrong=("int s = t + d - 3;", "int s = t + d - 2;", "misplaces the window by one position"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- pooling
    dict(
        id="maxpool2d_3x3s2", category="pooling",
        signature="void maxpool2d_3x3s2(const float* x, float* y, int batch, int ch, int h, int w)",
        buffers=[buf("x", F, "batch * ch * h * w", "in", nrm(0, 1), ["inf"]),
                 buf("y", F, "batch * ch * ((h - 1) / 2 + 1) * ((w - 1) / 2 + 1)", "out")],
        scalars={"batch": "batch", "ch": "ch", "h": "h", "w": "w"},
        sizes=[{"batch": 32, "ch": 64, "h": 112, "w": 112}, {"batch": 2, "ch": 3, "h": 17, "w": 33}, {"batch": 1, "ch": 5, "h": 1, "w": 8}],
        grid=["ceil_div((w - 1) / 2 + 1, 32)", "ceil_div((h - 1) / 2 + 1, 8)", "batch * ch"], block=["32", "8", "1"],
        tol=(0.0, 0.0, "a maximum is one of its inputs, exactly"),
        definition="computes 2-D max pooling, 3 x 3 window, stride 2, padding 1, 32-bit floats in NCHW layout: "
        "x is (batch, ch, h, w), y is (batch, ch, oh, ow) with oh = (h - 1) / 2 + 1 and ow = (w - 1) / 2 + 1 "
        "(integer division), both row-major, and y[b][c][i][j] = max over di < 3, dj < 3 of "
        "x[b][c][2i+di-1][2j+dj-1], taken only over positions inside the image (padding never wins). "
        "Inputs may hold +inf and -inf.",
        reference="computes one output per thread (threads along a row), nine reads through the caches; it is memory-bound already",
        good="reading each input row once per warp with coalesced 8-byte loads (the odd column passed between lanes by a shuffle) reaches about 1.15x; the bound is reading x once",
        wrong=("int ii = 2 * i + di - 1;", "int ii = 2 * i + di;", "ignores the top padding (windows start one row low)"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="global_avgpool", category="pooling",
        signature="void global_avgpool(const float* x, float* y, int rows, int hw)",
        buffers=[buf("x", F, "rows * hw", "in", uni(-1, 1)), buf("y", F, "rows", "out")],
        scalars={"rows": "rows", "hw": "hw"},
        sizes=[{"rows": 262144, "hw": 49}, {"rows": 7, "hw": 3136}, {"rows": 1000, "hw": 1}],
        grid=["rows", "1", "1"], block=["64", "1", "1"],
        tol=(1e-5, 1e-4, "hw values summed in fp32 in any order"),
        definition="computes global average pooling: x holds rows = batch * channels feature maps of hw "
        "32-bit floats each (row-major, a map per row), and y[r] = (1 / hw) * sum over t < hw of x[r*hw + t].",
        reference="runs one 64-thread block per row: strided partial sums, then a shared-memory tree",
        good="one warp per row with shuffle reductions (no barriers) reaches about 3.5x on the 7 x 7 maps timed",
        wrong=("y[r] = part[0] / (float)hw;", "y[r] = part[0] / 64.0f;", "divides by the block size instead of hw"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- activations
    dict(
        id="gelu", category="activation",
        signature="void gelu(const float* x, float* y, int n)",
        buffers=[buf("x", F, "n", "in", nrm(0, 2), ["zero", "subnormal", "nan"]), buf("y", F, "n", "out")],
        scalars={"n": "n"},
        sizes=[{"n": 16777216}, {"n": 1000}, {"n": 77777}],
        grid=["ceil_div(n, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-5, 1e-4, "erf-based formulas lose a few digits where 1 + erf cancels for negative x; the tanh approximation (errors near 3e-4) does not pass"),
        definition="applies the exact GELU elementwise to n 32-bit floats: y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2))). "
        "Not the tanh approximation. NaN inputs give NaN.",
        reference="computes one element per thread (coalesced) with erff; it is memory-bound already",
        good="16-byte vector loads and stores with a grid-stride loop reach about 1.5x; the bound is reading x and writing y once",
        wrong=("0.5f * v * (1.0f + erff(v * 0.70710678118654752f))",
               "0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)))",
               "uses the tanh approximation the task rules out"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="silu", category="activation",
        signature="void silu(const float* x, float* y, int n)",
        buffers=[buf("x", F, "n", "in", nrm(0, 3), ["zero", "subnormal", "nan"]), buf("y", F, "n", "out")],
        scalars={"n": "n"},
        sizes=[{"n": 16777216}, {"n": 1000}, {"n": 77777}],
        grid=["ceil_div(n, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-6, 1e-4, "expf and its fast variants agree to a few units in the last place"),
        definition="applies SiLU (swish) elementwise to n 32-bit floats: y[i] = x[i] / (1 + exp(-x[i])). "
        "NaN inputs give NaN.",
        reference="computes one element per thread (coalesced); it is memory-bound already",
        good="16-byte vector loads and stores with a grid-stride loop reach about 1.5x",
        wrong=("v / (1.0f + expf(-v))", "v / (1.0f + expf(v))", "drops the minus sign in the exponent"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="softplus", category="activation",
        signature="void softplus(const float* x, float* y, int n)",
        buffers=[buf("x", F, "n", "in", uni(-100, 100), ["zero", "inf", "nan"]), buf("y", F, "n", "out")],
        scalars={"n": "n"},
        sizes=[{"n": 16777216}, {"n": 1000}, {"n": 77777}],
        grid=["ceil_div(n, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-6, 1e-4, "a stable formula rounds a few times; the naive log(1 + exp(x)) overflows to inf for x > 88.7"),
        definition="applies softplus elementwise to n 32-bit floats: y[i] = log(1 + exp(x[i])), computed so "
        "that it does not overflow: inputs span [-100, 100], and may be +inf (y = +inf), -inf (y = 0) or NaN (y = NaN).",
        reference="computes one element per thread (coalesced) in the stable form max(x, 0) + log1p(exp(-|x|)); it is memory-bound already",
        good="16-byte vector loads and stores with a grid-stride loop reach about 1.5x",
        wrong=("fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)))", "logf(1.0f + expf(v))",
               "uses the naive formula, which overflows to inf for x > 88.7"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="swiglu", category="activation",
        signature="void swiglu(const float* a, const float* b, float* y, int n)",
        buffers=[buf("a", F, "n", "in", uni(-8, 8)), buf("b", F, "n", "in", uni(-8, 8)), buf("y", F, "n", "out")],
        scalars={"n": "n"},
        sizes=[{"n": 16777216}, {"n": 1000}, {"n": 77777}],
        grid=["ceil_div(n, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-5, 1e-4, "expf and its fast variants agree to a few units in the last place"),
        definition="applies the SwiGLU gate elementwise to n pairs of 32-bit floats: y[i] = silu(a[i]) * b[i] "
        "with silu(v) = v / (1 + exp(-v)).",
        reference="computes one element per thread (coalesced); it is memory-bound already",
        good="16-byte vector loads and stores with a grid-stride loop reach about 1.55x",
        wrong=("y[i] = v / (1.0f + expf(-v)) * b[i];", "y[i] = b[i] / (1.0f + expf(-b[i])) * v;",
               "gates the wrong input (silu(b) * a)"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    # ---------------------------------------------------------------- reductions
    dict(
        id="sum_rows", category="reduction",
        signature="void sum_rows(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-1, 1)), buf("y", F, "rows", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 32768, "cols": 1024}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 1}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-3, 1e-4, "cols values summed in fp32 in any order"),
        definition="sums each row of a rows x cols matrix of 32-bit floats (row-major): y[r] = sum over j of x[r*cols + j].",
        reference="runs one 256-thread block per row: strided partial sums, then a shared-memory tree",
        good="one warp per row with 16-byte loads and shuffle reductions reaches about 1.2-2x",
        wrong=("for (int half = 128; half > 0; half /= 2) {", "for (int half = 64; half > 0; half /= 2) {",
               "starts its tree at 64, so half of the partial sums are lost"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="max_dim0", category="reduction",
        signature="void max_dim0(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", nrm(0, 1), ["inf"]), buf("y", F, "cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 8192, "cols": 4096}, {"rows": 333, "cols": 7}, {"rows": 1, "cols": 300}],
        grid=["ceil_div(cols, 32)", "1", "1"], block=["32", "8", "1"],
        tol=(0.0, 0.0, "a maximum is one of its inputs, exactly"),
        definition="takes the maximum along the first axis of a rows x cols matrix of 32-bit floats (row-major): "
        "y[j] = max over i of x[i*cols + j]. Inputs may hold +inf and -inf.",
        reference="covers 32 columns per block of 32 x 8 threads (reads coalesced along a row), each thread every 8th row, partial maxima combined in shared memory",
        good="more threads per column (32 x 32 blocks) keep enough loads in flight: about 1.5-3x",
        wrong=("for (int k = 1; k < 8; ++k) {", "for (int k = 1; k < 7; ++k) {",
               "never looks at the last of its 8 partial maxima"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="argmax_rows", category="reduction",
        signature="void argmax_rows(const float* x, int* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", nrm(0, 1), ["inf"]), buf("y", "i32", "rows", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 32768, "cols": 1024}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 2}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(0.0, 0.0, "an index is exact"),
        definition="finds, for each row of a rows x cols matrix of 32-bit floats (row-major), the index of "
        "its largest element: y[r] = the smallest j such that x[r*cols + j] equals the row's maximum "
        "(ties go to the first index; rows may hold runs of equal values, +inf and -inf).",
        reference="runs one 256-thread block per row, then a shared-memory tree of (value, index) pairs",
        good="one warp per row with shuffle reductions of (value, index) reaches about 1.2-2x",
        wrong=("(ov == mv && oi < mi)", "(ov == mv && oi > mi)",
               "breaks ties towards the larger index: right on the typical random draw, wrong on rows with equal values"),
        fake_wrong="typical-only", ratio=1.1,
    ),
    dict(
        id="mean_dim1", category="reduction",
        signature="void mean_dim1(const float* x, float* y, int batch, int len, int dim)",
        buffers=[buf("x", F, "batch * len * dim", "in", uni(-1, 1)), buf("y", F, "batch * dim", "out")],
        scalars={"batch": "batch", "len": "len", "dim": "dim"},
        sizes=[{"batch": 32, "len": 1024, "dim": 1024}, {"batch": 3, "len": 77, "dim": 33}, {"batch": 5, "len": 1, "dim": 300}],
        grid=["ceil_div(dim, 256)", "batch", "1"], block=["256", "1", "1"],
        tol=(1e-5, 1e-4, "len values summed in fp32 in any order"),
        definition="averages a (batch, len, dim) tensor of 32-bit floats (row-major) over its middle axis "
        "(pooling over a sequence): y[b*dim + d] = (1 / len) * sum over t < len of x[(b*len + t)*dim + d].",
        reference="computes one output per thread, summing down its column (threads along d, so reads are coalesced)",
        good="splitting the len axis across several threads per output (then combining in shared memory) keeps enough loads in flight: about 1.9x",
        wrong=("for (int t = 0; t < len; ++t) {", "for (int t = 0; t < len - 1; ++t) {", "drops the last position of the sequence"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- normalisations
    dict(
        id="layernorm", category="normalisation",
        signature="void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-2, 2)), buf("gamma", F, "cols", "in", uni(0.5, 1.5)),
                 buf("beta", F, "cols", "in", uni(-1, 1)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 16384, "cols": 1024}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 3}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(5e-4, 1e-4, "rows whose values lie close together are scaled by up to 1/sqrt(1e-5) = 316, which amplifies the rounding of their mean"),
        definition="applies layer normalisation to each row of a rows x cols matrix of 32-bit floats "
        "(row-major), with per-column gain and bias and eps = 1e-5: mean_r = (1/cols) sum_j x[r][j], "
        "var_r = (1/cols) sum_j (x[r][j] - mean_r)^2 (biased), y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + 1e-5) * gamma[j] + beta[j]. "
        "Rows may hold values that are all close together or equal: compute the variance in a numerically "
        "stable way (about the mean, or Welford), not as E[x^2] - E[x]^2.",
        reference="runs one 256-thread block per row: two passes (the mean, then the variance about it), each a shared-memory tree, then the write",
        good="reading the row once into registers with 16-byte loads, the two reductions by shuffles, reaches about 1.3x",
        wrong=("float d = xr[j] - mean;\n        q += d * d;", "q += xr[j] * xr[j];",
               "computes the variance as E[x^2] - E[x]^2, which cancels catastrophically on rows whose values lie close together (right on the typical draw)"),
        wrong2=("block_sum(q, part) / (float)cols + 1e-5f", "(block_sum(q, part) / (float)cols - mean * mean) + 1e-5f"),
        fake_wrong="typical-only", ratio=1.1,
    ),
    dict(
        id="rmsnorm", category="normalisation",
        signature="void rmsnorm(const float* x, const float* g, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", nrm(0, 1)), buf("g", F, "cols", "in", uni(0.5, 1.5)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 16384, "cols": 1024}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 1}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-5, 1e-4, "a sum of squares in any order and a square root round a few times"),
        definition="applies RMS normalisation to each row of a rows x cols matrix of 32-bit floats (row-major), "
        "with a per-column gain and eps = 1e-6: y[r][j] = x[r][j] / sqrt((1/cols) sum_k x[r][k]^2 + 1e-6) * g[j].",
        reference="runs one 256-thread block per row: the sum of squares by a shared-memory tree, then the write",
        good="reading the row once into registers with 16-byte loads and reducing by shuffles reaches about 1.15x; the reference already streams close to the memory bandwidth",
        wrong=("sqrtf(part[0] / (float)cols + 1e-6f)", "sqrtf(part[0] + 1e-6f)", "divides by the root of the sum, not of the mean"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="batchnorm_infer", category="normalisation",
        signature="void batchnorm_infer(const float* x, const float* mean, const float* var, const float* gamma, const float* beta, float* y, int batch, int ch, int hw)",
        buffers=[buf("x", F, "batch * ch * hw", "in", uni(-4, 4)), buf("mean", F, "ch", "in", uni(-1, 1)),
                 buf("var", F, "ch", "in", uni(0.25, 4)), buf("gamma", F, "ch", "in", uni(-2, 2)),
                 buf("beta", F, "ch", "in", uni(-1, 1)), buf("y", F, "batch * ch * hw", "out")],
        scalars={"batch": "batch", "ch": "ch", "hw": "hw"},
        sizes=[{"batch": 32, "ch": 256, "hw": 3136}, {"batch": 3, "ch": 7, "hw": 33}, {"batch": 1, "ch": 300, "hw": 1}],
        grid=["ceil_div(batch * ch * hw, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(2e-5, 1e-4, "folding the statistics into one scale and shift per channel rounds differently, by a few units in the last place"),
        definition="applies batch normalisation at inference to a (batch, ch, hw) tensor of 32-bit floats "
        "(NCHW with the spatial axes flattened, row-major) with per-channel statistics and eps = 1e-5: "
        "y[b][c][t] = (x[b][c][t] - mean[c]) / sqrt(var[c] + 1e-5) * gamma[c] + beta[c].",
        reference="computes one element per thread (coalesced), finding its channel by a 64-bit division; it is memory-bound",
        good="a block per (image, channel) plane with the statistics in registers and 16-byte accesses reaches about 1.1-1.4x",
        wrong=("sqrtf(var[c] + 1e-5f)", "(var[c] + 1e-5f)", "divides by the variance instead of the standard deviation"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    # ---------------------------------------------------------------- softmax family
    dict(
        id="softmax_dim0", category="softmax",
        signature="void softmax_dim0(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-100, 100)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 1024, "cols": 16384}, {"rows": 333, "cols": 7}, {"rows": 2, "cols": 300}],
        grid=["ceil_div(cols, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-6, 1e-4, "exponentials and their sum in any order; outputs lie in [0, 1]"),
        definition="computes a numerically stable softmax along the first axis of a rows x cols matrix of "
        "32-bit floats (row-major; each column is normalised over the rows): "
        "y[i][j] = exp(x[i][j] - m_j) / sum over k of exp(x[k][j] - m_j), m_j = max over k of x[k][j]. "
        "Inputs span [-100, 100], so exp overflows fp32 unless the column maximum is subtracted first.",
        reference="runs one thread per column, three passes down it (max, sum, write), reads coalesced along a row",
        good="several threads per column (e.g. 32 x 8 blocks) with an online (max, sum) pass reach about 3-8x: the reference's cols / 256 blocks do not cover the GPU",
        wrong=("s += expf(x[(long long)i * cols + j] - m);", "s += expf(x[(long long)i * cols + j]);",
               "leaves the maximum out of the sum (the normaliser is off, and overflows)"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    dict(
        id="logsoftmax_rows", category="softmax",
        signature="void logsoftmax_rows(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-100, 100)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 32768, "cols": 1024}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 2}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-4, 1e-5, "the log of a sum of exponentials in any order moves by about 1e-6; outputs reach -200 or so"),
        definition="computes a numerically stable log-softmax along the last axis of a rows x cols matrix of "
        "32-bit floats (row-major): y[r][j] = x[r][j] - m_r - log(sum over k of exp(x[r][k] - m_r)), "
        "m_r = max over k of x[r][k]. Inputs span [-100, 100], so exp overflows fp32 unless the row maximum is subtracted first.",
        reference="runs one 256-thread block per row, three passes (max and sum by shared-memory trees, then the write)",
        good="reading the row once into registers with 16-byte loads and reducing by shuffles reaches about 1.15-1.2x; it is memory-bound",
        wrong=("yr[j] = (xr[j] - m) - lse;", "yr[j] = xr[j] - lse;", "forgets to subtract the maximum it factored out"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="logsoftmax_dim0", category="softmax",
        signature="void logsoftmax_dim0(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-100, 100)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 1024, "cols": 16384}, {"rows": 333, "cols": 7}, {"rows": 2, "cols": 300}],
        grid=["ceil_div(cols, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-4, 1e-5, "the log of a sum of exponentials in any order moves by about 1e-6; outputs reach -200 or so"),
        definition="computes a numerically stable log-softmax along the first axis of a rows x cols matrix of "
        "32-bit floats (row-major; each column over the rows): y[i][j] = x[i][j] - m_j - log(sum over k of exp(x[k][j] - m_j)), "
        "m_j = max over k of x[k][j]. Inputs span [-100, 100].",
        reference="runs one thread per column, three passes down it (max, sum, write), reads coalesced along a row",
        good="several threads per column (e.g. 32 x 8 blocks) with an online (max, sum) pass reach about 3-8x",
        wrong=("float lse = logf(s);", "float lse = logf(s / (float)rows);", "subtracts the log of the mean instead of the sum"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- losses
    dict(
        id="cross_entropy", category="loss",
        signature="void cross_entropy(const float* logits, const int* target, float* loss, int rows, int classes)",
        buffers=[buf("logits", F, "rows * classes", "in", uni(-100, 100)), buf("target", "i32", "rows", "in", uni(0, 999)),
                 buf("loss", F, "rows", "out")],
        scalars={"rows": "rows", "classes": "classes"},
        sizes=[{"rows": 4096, "classes": 8000}, {"rows": 7, "classes": 1001}, {"rows": 300, "classes": 1000}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-4, 1e-5, "the log of a sum of exponentials in any order moves by about 1e-6; losses reach 200 or so"),
        definition="computes the cross-entropy of each row of logits against an integer class (no reduction "
        "over the rows): logits is rows x classes 32-bit floats (row-major), target holds rows int32 values in "
        "[0, 999] (every size has at least 1000 classes), and loss[r] = log(sum over j of exp(logits[r][j])) - logits[r][target[r]], "
        "computed stably (logits span [-100, 100]; subtract the row maximum inside the log-sum-exp).",
        reference="runs one 256-thread block per row: the maximum and the sum of exponentials by shared-memory trees (two reads of the row)",
        good="reading the row once into registers with 16-byte loads and reducing by shuffles reaches about 1.1-1.2x; it is memory-bound",
        wrong=("logf(part[0]) + (m - xr[target[blockIdx.x]])", "logf(part[0]) - xr[target[blockIdx.x]]",
               "forgets to add back the maximum it factored out"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="mse_rows", category="loss",
        signature="void mse_rows(const float* pred, const float* target, float* loss, int rows, int cols)",
        buffers=[buf("pred", F, "rows * cols", "in", uni(-1, 1)), buf("target", F, "rows * cols", "in", uni(-1, 1)),
                 buf("loss", F, "rows", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 65536, "cols": 512}, {"rows": 7, "cols": 333}, {"rows": 300, "cols": 1}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-5, 1e-4, "cols squares summed in fp32 in any order"),
        definition="computes the mean squared error of each row (no reduction over the rows): pred and target "
        "are rows x cols 32-bit floats (row-major), loss[r] = (1/cols) sum over j of (pred[r][j] - target[r][j])^2.",
        reference="runs one 256-thread block per row: strided partial sums, then a shared-memory tree",
        good="one warp per row with 16-byte loads and shuffle reductions reaches about 1.6x (the reference's 256 threads hold two elements of a 512-float row each and spend eight barriers on it)",
        wrong=("loss[blockIdx.x] = part[0] / (float)cols;", "loss[blockIdx.x] = sqrtf(part[0] / (float)cols);",
               "returns the root mean squared error"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- scan
    dict(
        id="cumsum_rows", category="scan",
        signature="void cumsum_rows(const float* x, float* y, int rows, int cols)",
        buffers=[buf("x", F, "rows * cols", "in", uni(-1, 1)), buf("y", F, "rows * cols", "out")],
        scalars={"rows": "rows", "cols": "cols"},
        sizes=[{"rows": 8192, "cols": 4096}, {"rows": 7, "cols": 1333}, {"rows": 300, "cols": 1}],
        grid=["rows", "1", "1"], block=["256", "1", "1"],
        tol=(1e-3, 1e-4, "prefix sums of up to cols terms in fp32 in any association"),
        definition="computes the inclusive prefix sum along the last axis of a rows x cols matrix of 32-bit "
        "floats (row-major): y[r][j] = sum over k <= j of x[r][k].",
        reference="runs one 256-thread block per row, walking it in chunks of 256: a Hillis-Steele scan of each chunk in shared memory plus the running total",
        good="per-thread scans of several elements, warp shuffles and one shared-memory step per chunk reach about 2-5x",
        wrong=("yr[j] = c + buf[threadIdx.x];", "yr[j] = c + buf[threadIdx.x] - v;", "writes the exclusive scan"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- histogram
    dict(
        id="histogram256", category="histogram",
        signature="void histogram256(const int* values, unsigned int* hist, int n)",
        buffers=[buf("values", "i32", "n", "in", uni(0, 255)), buf("hist", "u32", "256", "inout", uni(0, 0))],
        scalars={"n": "n"},
        sizes=[{"n": 16777216}, {"n": 1000}, {"n": 77777}],
        grid=["ceil_div(n, 4096)", "1", "1"], block=["256", "1", "1"],
        tol=(0.0, 0.0, "counts are exact"),
        definition="counts values into a 256-bin histogram: values holds n int32 values in [0, 255] (which "
        "may repeat in long runs), hist holds 256 unsigned counters that are all 0 when the kernel starts, "
        "and the kernel adds to hist[v] the number of i < n with values[i] == v. Many threads update the same "
        "bins, so use atomic additions (or per-block counts added atomically).",
        reference="has each block count 4096 values into a shared-memory histogram with shared atomics, then add its 256 counts with global atomics",
        good="per-warp shared-memory histograms, 16-byte loads and a grid of a few blocks per SM reach about 1.3-2.5x",
        wrong=("atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);", "hist[threadIdx.x] = local[threadIdx.x];",
               "stores its block's counts instead of adding them, so blocks overwrite each other"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- gather / scatter
    dict(
        id="embedding_gather", category="gather",
        signature="void embedding_gather(const float* table, const int* ids, float* out, int n, int dim, int vocab)",
        buffers=[buf("table", F, "vocab * dim", "in", uni(-1, 1)), buf("ids", "i32", "n", "in", uni(0, 4095)),
                 buf("out", F, "n * dim", "out")],
        scalars={"n": "n", "dim": "dim", "vocab": "vocab"},
        sizes=[{"n": 65536, "dim": 256, "vocab": 4096}, {"n": 7, "dim": 33, "vocab": 4096}, {"n": 1000, "dim": 1, "vocab": 4096}],
        grid=["ceil_div(n * dim, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(0.0, 0.0, "a copy is exact"),
        definition="gathers rows of a table by index (an embedding lookup): table is vocab x dim 32-bit floats "
        "(row-major), ids holds n int32 values in [0, vocab) (which may repeat), and out[i*dim + d] = table[ids[i]*dim + d].",
        reference="copies one element per thread (coalesced), its row found by a 64-bit division; it is memory-bound",
        good="one warp per row with 16-byte copies reaches about 2.7x",
        wrong=("out[e] = table[(long long)ids[i] * dim + d];", "out[e] = table[(long long)d * vocab + ids[i]];",
               "reads the table as if it were column-major"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="scatter_add_rows", category="scatter",
        signature="void scatter_add_rows(const float* src, const int* ids, float* out, int n, int dim, int vocab)",
        buffers=[buf("src", F, "n * dim", "in", uni(-1, 1)), buf("ids", "i32", "n", "in", uni(0, 4095)),
                 buf("out", F, "vocab * dim", "inout", uni(-1, 1))],
        scalars={"n": "n", "dim": "dim", "vocab": "vocab"},
        sizes=[{"n": 65536, "dim": 128, "vocab": 4096}, {"n": 7, "dim": 33, "vocab": 4096}, {"n": 3000, "dim": 1, "vocab": 4096}],
        grid=["ceil_div(n * dim, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(1e-3, 1e-4, "atomic float additions land in any order; when every index is the same, 65536 additions go into one row"),
        definition="adds rows of src into the rows of out that ids names (index_add along the first axis): "
        "src is n x dim 32-bit floats, out is vocab x dim (row-major, holding data to add to), ids holds n "
        "int32 values in [0, vocab) that may repeat (all of them may be equal), and for every i < n and d < dim, "
        "out[ids[i]*dim + d] += src[i*dim + d]. Repeated indices need atomic additions.",
        reference="adds one element per thread with a float atomicAdd",
        good="one warp per source row with 16-byte vector atomics (atomicAdd on float4, sm_90) reaches about 1.5-3x",
        wrong=("atomicAdd(&out[(long long)ids[i] * dim + d], src[e]);", "out[(long long)ids[i] * dim + d] += src[e];",
               "adds without atomics, so additions to a repeated row are lost"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- permutes
    dict(
        id="permute_0213", category="permute",
        signature="void permute_0213(const float* x, float* y, int b, int s, int h, int d)",
        buffers=[buf("x", F, "b * s * h * d", "in", uni(-1, 1)), buf("y", F, "b * h * s * d", "out")],
        scalars={"b": "b", "s": "s", "h": "h", "d": "d"},
        sizes=[{"b": 8, "s": 1024, "h": 16, "d": 64}, {"b": 3, "s": 7, "h": 5, "d": 33}, {"b": 1, "s": 100, "h": 3, "d": 1}],
        grid=["ceil_div(b * s * h * d, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(0.0, 0.0, "a copy is exact"),
        definition="swaps the two middle axes of a 4-D tensor of 32-bit floats (splitting attention heads): "
        "x is (b, s, h, d) and y is (b, h, s, d), both row-major, y[bi][hi][si][di] = x[bi][si][hi][di].",
        reference="copies one element per thread, its coordinates found by division (reads and writes coalesced along d); it is memory-bound",
        good="one warp per row of d elements with 16-byte copies reaches about 1.1-1.5x",
        wrong=("y[e] = x[((bi * s + si) * h + hi) * d + di];", "y[e] = x[((bi * h + hi) * s + si) * d + di];",
               "copies without permuting"),
        fake_wrong="ignores-inputs", ratio=1.0,
    ),
    dict(
        id="nchw_to_nhwc", category="permute",
        signature="void nchw_to_nhwc(const float* x, float* y, int n, int c, int hw)",
        buffers=[buf("x", F, "n * c * hw", "in", uni(-1, 1)), buf("y", F, "n * hw * c", "out")],
        scalars={"n": "n", "c": "c", "hw": "hw"},
        sizes=[{"n": 32, "c": 256, "hw": 3136}, {"n": 3, "c": 7, "hw": 33}, {"n": 2, "c": 33, "hw": 65}],
        grid=["ceil_div(n * hw * c, 256)", "1", "1"], block=["256", "1", "1"],
        tol=(0.0, 0.0, "a copy is exact"),
        definition="converts an image batch of 32-bit floats from channels-first to channels-last, spatial axes "
        "flattened: x is (n, c, hw), y is (n, hw, c), both row-major, y[b][t][ch] = x[b][ch][t].",
        reference="copies one element per thread (writes coalesced, reads strided by hw)",
        good="32 x 32 tiles transposed through shared memory (both sides coalesced) reach about 2-4x",
        wrong=("y[e] = x[(b * c + ch) * hw + t];", "y[e] = x[(b * hw + t) * c + ch];", "copies without permuting"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
    # ---------------------------------------------------------------- attention
    dict(
        id="attention", category="attention",
        signature="void attention(const float* q, const float* k, const float* v, float* out, int s, int d)",
        buffers=[buf("q", F, "s * d", "in", uni(-3, 3)), buf("k", F, "s * d", "in", uni(-3, 3)),
                 buf("v", F, "s * d", "in", uni(-1, 1)), buf("out", F, "s * d", "out")],
        scalars={"s": "s", "d": "d"},
        sizes=[{"s": 1024, "d": 64}, {"s": 77, "d": 33}, {"s": 5, "d": 128}],
        grid=["s", "1", "1"], block=["128", "1", "1"], shared="s * 4",
        tol=(1e-5, 1e-4, "exponentials, their sum and the weighted sum of v in any order; outputs are averages of values in [-1, 1]"),
        definition="computes single-head scaled dot-product attention without a mask, 32-bit floats: q, k, v "
        "and out are s x d (row-major, d <= 128), l_ij = (sum over t of q[i][t] * k[j][t]) / sqrt(d), "
        "p_ij = exp(l_ij - max_j l_ij) / sum_j exp(l_ij - max_j l_ij), out[i][t] = sum over j of p_ij * v[j][t]. "
        "Compute the softmax stably.",
        reference="runs one 128-thread block per query: the s scores in dynamic shared memory, max and sum by shared-memory trees, then the weighted sum of v; every query re-reads all of K and V",
        good="a few queries per block sharing every key and value tile they load, with an online softmax (flash-attention style), reach about 1.3-1.6x (K and V, 256 KiB each, stay in L2 for the reference too)",
        wrong=("const float scale = 1.0f / sqrtf((float)d);", "const float scale = 1.0f / (float)d;",
               "scales the scores by 1/d instead of 1/sqrt(d)"),
        fake_wrong="ignores-inputs", ratio=1.1,
    ),
]
