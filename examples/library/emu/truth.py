"""Each library operator computed from its definition in double precision (plain Python), to
check the references themselves: emu.py compares every reference's outputs on the odd sizes
with these. `f(bufs, size)` takes the inputs by buffer name (fp32 values as floats, integers as
ints; `inout` buffers with their starting data) and returns the outputs by name."""

import math


def _mm(a, b, m, n, k, a_off=0, b_off=0, bt=False):
    out = []
    for i in range(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                bv = b[b_off + j * k + p] if bt else b[b_off + p * n + j]
                s += a[a_off + i * k + p] * bv
            out.append(s)
    return out


def mm_square(x, s):
    return {"c": _mm(x["a"], x["b"], s["n"], s["n"], s["n"])}


def mm_tall_skinny(x, s):
    return {"c": _mm(x["a"], x["b"], s["m"], s["n"], s["k"])}


def mm_batched(x, s):
    m, n, k = s["m"], s["n"], s["k"]
    out = []
    for z in range(s["batch"]):
        out += _mm(x["a"], x["b"], m, n, k, z * m * k, z * k * n)
    return {"c": out}


def mm_nt(x, s):
    return {"c": _mm(x["a"], x["b"], s["m"], s["n"], s["k"], bt=True)}


def conv2d_3x3(x, s):
    B, C, O, H, W = s["batch"], s["cin"], s["cout"], s["h"], s["w"]
    xs, wt, y = x["x"], x["wt"], []
    for b in range(B):
        for o in range(O):
            for i in range(H):
                for j in range(W):
                    acc = 0.0
                    for c in range(C):
                        for di in range(3):
                            for dj in range(3):
                                ii, jj = i + di - 1, j + dj - 1
                                if 0 <= ii < H and 0 <= jj < W:
                                    acc += xs[((b * C + c) * H + ii) * W + jj] * wt[((o * C + c) * 3 + di) * 3 + dj]
                    y.append(acc)
    return {"y": y}


def dwconv2d_3x3(x, s):
    B, C, H, W = s["batch"], s["ch"], s["h"], s["w"]
    xs, wt, y = x["x"], x["wt"], []
    for b in range(B):
        for c in range(C):
            for i in range(H):
                for j in range(W):
                    acc = 0.0
                    for di in range(3):
                        for dj in range(3):
                            ii, jj = i + di - 1, j + dj - 1
                            if 0 <= ii < H and 0 <= jj < W:
                                acc += xs[((b * C + c) * H + ii) * W + jj] * wt[c * 9 + di * 3 + dj]
                    y.append(acc)
    return {"y": y}


def conv1d(x, s):
    B, C, O, L = s["batch"], s["cin"], s["cout"], s["len"]
    xs, wt, y = x["x"], x["wt"], []
    for b in range(B):
        for o in range(O):
            for t in range(L):
                acc = 0.0
                for c in range(C):
                    for d in range(7):
                        u = t + d - 3
                        if 0 <= u < L:
                            acc += xs[(b * C + c) * L + u] * wt[(o * C + c) * 7 + d]
                y.append(acc)
    return {"y": y}


def maxpool2d_3x3s2(x, s):
    B, C, H, W = s["batch"], s["ch"], s["h"], s["w"]
    oh, ow = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    xs, y = x["x"], []
    for p in range(B * C):
        for i in range(oh):
            for j in range(ow):
                vals = [xs[p * H * W + ii * W + jj] for ii in range(2 * i - 1, 2 * i + 2) for jj in range(2 * j - 1, 2 * j + 2)
                        if 0 <= ii < H and 0 <= jj < W]
                y.append(max(vals))
    return {"y": y}


def global_avgpool(x, s):
    hw = s["hw"]
    return {"y": [sum(x["x"][r * hw:(r + 1) * hw]) / hw for r in range(s["rows"])]}


def gelu(x, s):
    return {"y": [0.5 * v * (1 + math.erf(v / math.sqrt(2))) if not math.isnan(v) else math.nan for v in x["x"]]}


def _sigmoid(v):
    if v >= 0:
        return 1 / (1 + math.exp(-v))
    e = math.exp(v)
    return e / (1 + e)


def silu(x, s):
    return {"y": [v * _sigmoid(v) if not math.isnan(v) else math.nan for v in x["x"]]}


def softplus(x, s):
    out = []
    for v in x["x"]:
        if math.isnan(v):
            out.append(math.nan)
        elif math.isinf(v):
            out.append(v if v > 0 else 0.0)
        else:
            out.append(max(v, 0.0) + math.log1p(math.exp(-abs(v))))
    return {"y": out}


def swiglu(x, s):
    return {"y": [a * _sigmoid(a) * b for a, b in zip(x["a"], x["b"])]}


def _rows(v, rows, cols):
    return [v[r * cols:(r + 1) * cols] for r in range(rows)]


def sum_rows(x, s):
    return {"y": [sum(r) for r in _rows(x["x"], s["rows"], s["cols"])]}


def max_dim0(x, s):
    R, C = s["rows"], s["cols"]
    return {"y": [max(x["x"][i * C + j] for i in range(R)) for j in range(C)]}


def argmax_rows(x, s):
    out = []
    for r in _rows(x["x"], s["rows"], s["cols"]):
        m = max(r)
        out.append(r.index(m))
    return {"y": out}


def mean_dim1(x, s):
    B, L, D = s["batch"], s["len"], s["dim"]
    return {"y": [sum(x["x"][(b * L + t) * D + d] for t in range(L)) / L for b in range(B) for d in range(D)]}


def layernorm(x, s):
    out = []
    for r in _rows(x["x"], s["rows"], s["cols"]):
        mean = sum(r) / len(r)
        var = sum((v - mean) ** 2 for v in r) / len(r)
        out += [(v - mean) / math.sqrt(var + 1e-5) * g + b for v, g, b in zip(r, x["gamma"], x["beta"])]
    return {"y": out}


def rmsnorm(x, s):
    out = []
    for r in _rows(x["x"], s["rows"], s["cols"]):
        rs = math.sqrt(sum(v * v for v in r) / len(r) + 1e-6)
        out += [v / rs * g for v, g in zip(r, x["g"])]
    return {"y": out}


def batchnorm_infer(x, s):
    B, C, HW = s["batch"], s["ch"], s["hw"]
    out = []
    for b in range(B):
        for c in range(C):
            for t in range(HW):
                v = x["x"][(b * C + c) * HW + t]
                out.append((v - x["mean"][c]) / math.sqrt(x["var"][c] + 1e-5) * x["gamma"][c] + x["beta"][c])
    return {"y": out}


def _lse(vals):
    m = max(vals)
    return m + math.log(sum(math.exp(v - m) for v in vals))


def softmax_dim0(x, s):
    R, C = s["rows"], s["cols"]
    y = [0.0] * (R * C)
    for j in range(C):
        col = [x["x"][i * C + j] for i in range(R)]
        lse = _lse(col)
        for i in range(R):
            y[i * C + j] = math.exp(col[i] - lse)
    return {"y": y}


def logsoftmax_rows(x, s):
    out = []
    for r in _rows(x["x"], s["rows"], s["cols"]):
        lse = _lse(r)
        out += [v - lse for v in r]
    return {"y": out}


def logsoftmax_dim0(x, s):
    R, C = s["rows"], s["cols"]
    y = [0.0] * (R * C)
    for j in range(C):
        col = [x["x"][i * C + j] for i in range(R)]
        lse = _lse(col)
        for i in range(R):
            y[i * C + j] = col[i] - lse
    return {"y": y}


def cross_entropy(x, s):
    rows = _rows(x["logits"], s["rows"], s["classes"])
    return {"loss": [_lse(r) - r[t] for r, t in zip(rows, x["target"])]}


def mse_rows(x, s):
    C = s["cols"]
    p, t = _rows(x["pred"], s["rows"], C), _rows(x["target"], s["rows"], C)
    return {"loss": [sum((a - b) ** 2 for a, b in zip(pr, tr)) / C for pr, tr in zip(p, t)]}


def cumsum_rows(x, s):
    out = []
    for r in _rows(x["x"], s["rows"], s["cols"]):
        acc = 0.0
        for v in r:
            acc += v
            out.append(acc)
    return {"y": out}


def histogram256(x, s):
    h = list(x["hist"])
    for v in x["values"]:
        h[v] += 1
    return {"hist": h}


def embedding_gather(x, s):
    D = s["dim"]
    return {"out": [x["table"][i * D + d] for i in x["ids"] for d in range(D)]}


def scatter_add_rows(x, s):
    D = s["dim"]
    out = list(x["out"])
    for i, t in enumerate(x["ids"]):
        for d in range(D):
            out[t * D + d] += x["src"][i * D + d]
    return {"out": out}


def permute_0213(x, s):
    B, S, H, D = s["b"], s["s"], s["h"], s["d"]
    return {"y": [x["x"][((b * S + si) * H + h) * D + d] for b in range(B) for h in range(H) for si in range(S) for d in range(D)]}


def nchw_to_nhwc(x, s):
    N, C, HW = s["n"], s["c"], s["hw"]
    return {"y": [x["x"][(b * C + c) * HW + t] for b in range(N) for t in range(HW) for c in range(C)]}


def attention(x, s):
    S, D = s["s"], s["d"]
    q, k, v = _rows(x["q"], S, D), _rows(x["k"], S, D), _rows(x["v"], S, D)
    out = []
    for i in range(S):
        l = [sum(a * b for a, b in zip(q[i], k[j])) / math.sqrt(D) for j in range(S)]
        lse = _lse(l)
        p = [math.exp(z - lse) for z in l]
        out += [sum(p[j] * v[j][t] for j in range(S)) for t in range(D)]
    return {"out": out}
