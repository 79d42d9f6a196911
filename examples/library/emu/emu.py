#!/usr/bin/env python3
"""Checks the library's kernels on a CPU emulation of CUDA (emu.h), where no GPU is at hand.

For every task: its reference, faster and wrong kernels run on the task's odd sizes and on a
medium size (below; multiples of 4 and 32, so the vector and full-warp paths run), each on
inputs drawn from every input family of the task's domain (typical, top, bottom, row windows,
constant runs, sign patterns, magnitudes, and the special values it declares; written after
the harness's families, not bit for bit). On the odd sizes the reference is also compared with
the operator computed from its definition in double precision (truth.py), within twice the
task's tolerance. Outputs start as a sentinel, every buffer has guard
bands, inputs are checked unchanged. The faster kernel must match the reference within the
task's tolerance everywhere; the wrong one must miss somewhere. Kernels that set aorlta_launch
run with at most 6 blocks (they loop with a grid stride, so any grid is valid).

    python3 examples/library/emu/emu.py [TASK...]     # needs g++ 12 (C++20), standard library only
"""

import math
import random
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIB = HERE.parent
sys.path.insert(0, str(LIB))
from library import TASKS  # noqa: E402

import truth  # noqa: E402

MEDIUM = {
    "mm_square": {"n": 64}, "mm_tall_skinny": {"m": 256, "n": 32, "k": 64},
    "mm_batched": {"batch": 2, "m": 64, "n": 64, "k": 32}, "mm_nt": {"m": 128, "n": 64, "k": 48},
    "conv2d_3x3": {"batch": 1, "cin": 8, "cout": 16, "h": 16, "w": 16},
    "dwconv2d_3x3": {"batch": 2, "ch": 3, "h": 64, "w": 64},
    "conv1d": {"batch": 2, "cin": 16, "cout": 16, "len": 256},
    "maxpool2d_3x3s2": {"batch": 1, "ch": 2, "h": 64, "w": 64}, "global_avgpool": {"rows": 256, "hw": 49},
    "gelu": {"n": 4096}, "silu": {"n": 4096}, "softplus": {"n": 4096}, "swiglu": {"n": 4096},
    "sum_rows": {"rows": 64, "cols": 1024}, "max_dim0": {"rows": 256, "cols": 128},
    "argmax_rows": {"rows": 64, "cols": 1024}, "mean_dim1": {"batch": 2, "len": 64, "dim": 128},
    "layernorm": {"rows": 32, "cols": 1024}, "rmsnorm": {"rows": 32, "cols": 1024},
    "batchnorm_infer": {"batch": 2, "ch": 4, "hw": 256}, "softmax_dim0": {"rows": 256, "cols": 64},
    "logsoftmax_rows": {"rows": 32, "cols": 1024}, "logsoftmax_dim0": {"rows": 256, "cols": 64},
    "cross_entropy": {"rows": 16, "classes": 2000}, "mse_rows": {"rows": 32, "cols": 1024},
    "cumsum_rows": {"rows": 4, "cols": 4096}, "histogram256": {"n": 65536},
    "embedding_gather": {"n": 256, "dim": 64, "vocab": 4096}, "scatter_add_rows": {"n": 1024, "dim": 32, "vocab": 4096},
    "permute_0213": {"b": 2, "s": 16, "h": 4, "d": 64}, "nchw_to_nhwc": {"n": 2, "c": 64, "hw": 96},
    "attention": {"s": 128, "d": 64},
}
FAMILIES = ["typical", "top", "bottom", "row-window", "constant-runs", "signs", "magnitudes", "specials"]
FMT = {"f32": "f", "i32": "i", "u32": "I"}
SENTINEL = {"f32": struct.unpack("<f", struct.pack("<I", 0x7FA5A5A5))[0], "i32": -0x5A5A5A5B, "u32": 0xA5A5A5A5}


def ev(expr, size):
    env = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}
    env.update(size)
    return int(eval(expr.replace("/", "//"), env))


def row_len(b, size):
    parts = [p.strip() for p in b["len"].split("*")]
    return max(1, ev(parts[-1], size)) if len(parts) > 1 else 256


def domain(init):
    kind, a, b = init
    return (a - 6 * b, a + 6 * b) if kind == "normal" else (a, b)


def draw(b, size, family, rng):
    n = ev(b["len"], size)
    lo, hi = domain(b["init"])
    rng_w = hi - lo
    row = row_len(b, size)
    fam = family
    if fam == "signs" and not (lo < 0 < hi):
        fam = "typical"
    if fam == "specials" and not b["special"]:
        fam = "typical"
    out = []
    if fam in ("typical", "specials"):
        kind, a, c = b["init"]
        for _ in range(n):
            if kind == "normal":
                v = min(max(rng.gauss(a, c), lo), hi)
            else:
                v = rng.uniform(lo, hi)
            out.append(v)
        if fam == "specials":
            for i in range(n):
                if rng.random() < 0.125:
                    s = rng.choice(b["special"])
                    sign = rng.choice([-1, 1])
                    out[i] = {"zero": 0.0 * sign, "subnormal": sign * 1e-40, "inf": sign * math.inf, "nan": math.nan}[s]
    elif fam in ("top", "bottom"):
        w = rng_w * 2.0 ** -rng.randint(6, 12)
        out = [(hi - w + w * rng.random()) if fam == "top" else (lo + w * rng.random()) for _ in range(n)]
    elif fam == "row-window":
        for r in range(-(-n // row)):
            w = rng_w * 2.0 ** -rng.randint(6, 14)
            start = lo + (rng_w - w) * rng.random()
            out.extend(start + w * rng.random() for _ in range(row))
        out = out[:n]
    elif fam == "constant-runs":
        mode = rng.randint(0, 3)
        run = 2 << rng.randint(0, 7)
        vals = {}
        for i in range(n):
            q = i // row if mode == 0 else 0 if mode == 1 else i // run
            if q not in vals:
                vals[q] = lo + rng_w * rng.random()
            out.append(vals[q])
    elif fam == "signs":
        mode = rng.randint(0, 4)
        rowneg = {}
        blockneg = {}
        for i in range(n):
            if mode == 0:
                neg = i & 1
            elif mode == 1:
                neg = rowneg.setdefault(i // row, rng.random() < 0.5)
            elif mode == 2:
                neg = blockneg.setdefault(i // 32, rng.random() < 0.5)
            else:
                neg = mode == 3
            u = rng.random()
            out.append(lo * u if neg else hi * u)
    else:  # magnitudes
        anchor = lo if lo > 0 else hi if hi < 0 else 0.0
        for _ in range(n):
            if lo < anchor < hi:
                end = lo if rng.random() < 0.5 else hi
            else:
                end = hi if anchor == lo else lo
            e = rng.randint(0, 30 if b["dtype"] != "f32" else 24)
            out.append(anchor + (end - anchor) * (0.5 + 0.5 * rng.random()) * 2.0 ** -e)
    if b["dtype"] != "f32":
        ilo, ihi = int(lo), int(hi)
        out = [min(max(int(round(v)), ilo), ihi) if not math.isnan(v) else ilo for v in out]
    return out


def pack(dtype, vals):
    if dtype == "f32":
        return struct.pack(f"<{len(vals)}f", *[float(v) for v in vals])
    return struct.pack(f"<{len(vals)}{FMT[dtype]}", *vals)


def unpack(dtype, data):
    return list(struct.unpack(f"<{len(data) // 4}{FMT[dtype]}", data))


def params(signature):
    inside = signature[signature.index("(") + 1 : signature.rindex(")")]
    out = []
    for p in inside.split(","):
        p = p.strip()
        name = re.split(r"[\s*]+", p)[-1]
        out.append((p[: len(p) - len(name)].strip(), name))
    return out


MAIN = r"""
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
static std::vector<unsigned char> load(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}
int main(int argc, char** argv) {
    // argv: dir gx gy gz bx by bz shared scalars...
    const char* dir = argv[1];
    emu_dim3 g{(unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4])};
    emu_dim3 b{(unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]), (unsigned)atoi(argv[7])};
    size_t shared = atol(argv[8]);
    const int G = 256;
    std::vector<std::vector<unsigned char>> mem, orig;
    for (int k = 0; k < NBUF; ++k) {
        auto data = load((std::string(dir) + "/" + std::to_string(k) + ".in").c_str());
        std::vector<unsigned char> m(data.size() + 2 * G, 0xC3);
        std::copy(data.begin(), data.end(), m.begin() + G);
        orig.push_back(m);
        mem.push_back(m);
    }
    int si = 9;
    (void)si;
    emu_launch(g, b, shared, [&] { CALL; });
    int bad = 0;
    for (int k = 0; k < NBUF; ++k) {
        size_t n = mem[k].size() - 2 * G;
        for (int i = 0; i < G; ++i) {
            if (mem[k][i] != 0xC3 || mem[k][G + n + i] != 0xC3) { fprintf(stderr, "guard of buffer %d broken\n", k); bad = 3; break; }
        }
        if (!OUTPUT[k] && !std::equal(mem[k].begin(), mem[k].end(), orig[k].begin())) { fprintf(stderr, "input %d changed\n", k); bad = 3; }
        std::ofstream f(std::string(dir) + "/" + std::to_string(k) + ".out", std::ios::binary);
        f.write((const char*)mem[k].data() + G, n);
    }
    return bad;
}
"""


def build(task, source, work, tag):
    src = source.replace("extern __shared__ float score[];", "float* score = emu_shared<float>();")
    bufs = task["buffers"]
    names = [b["name"] for b in bufs]
    args = []
    scalar_i = 9
    for ty, name in params(task["signature"]):
        if name in names:
            k = names.index(name)
            args.append(f"({ty})(mem[{k}].data() + G)")
        else:
            args.append(f"atoi(argv[{scalar_i}])")
            scalar_i += 1
    kname = task["signature"].split("(")[0].split()[-1]
    outputs = ", ".join("1" if b["role"] != "in" else "0" for b in bufs)
    main = MAIN.replace("NBUF", str(len(bufs))).replace("CALL", f"{kname}({', '.join(args)})")
    main = main.replace("OUTPUT[k]", f"(std::vector<int>{{{outputs}}}[k])")
    text = '#include "emu.h"\n' + src + "\n" + main
    cpp = work / f"{tag}.cpp"
    cpp.write_text(text)
    exe = work / tag
    r = subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-w", "-I", str(HERE), "-o", str(exe), str(cpp)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{tag}: does not build:\n{r.stderr[:3000]}")
    launch = None
    m = re.search(r"aorlta_launch\[7\]\s*=\s*\{([^}]*)\}", source)
    if m:
        launch = [int(x) for x in m.group(1).split(",")]
    return exe, launch


def geometry(task, size, launch):
    if launch:
        return [min(launch[0], 6), launch[1], launch[2]], launch[3:6], launch[6]
    return [ev(e, size) for e in task["grid"]], [ev(e, size) for e in task["block"]], ev(task.get("shared", "0"), size)


def run(exe, launch, task, size, inputs, work):
    g, b, sh = geometry(task, size, launch)
    for k, buf in enumerate(task["buffers"]):
        n = ev(buf["len"], size)
        vals = inputs[k] if inputs[k] is not None else [SENTINEL[buf["dtype"]]] * n
        (work / f"{k}.in").write_bytes(pack(buf["dtype"], vals))
    scalars = [str(ev(v, size)) for _, v in task["scalars"].items()]
    order = [n for _, n in params(task["signature"]) if n in task["scalars"]]
    scalars = [str(ev(task["scalars"][n], size)) for n in order]
    r = subprocess.run([str(exe), str(work), *map(str, g), *map(str, b), str(sh), *scalars],
                       capture_output=True, text=True, timeout=600)
    outs = {}
    for k, buf in enumerate(task["buffers"]):
        if buf["role"] != "in":
            outs[k] = unpack(buf["dtype"], (work / f"{k}.out").read_bytes())
    return r.returncode, r.stderr.strip(), outs


def compare(task, want, got, slack=1.0):
    atol, rtol, _ = task["tol"]
    atol, rtol = atol * slack, rtol * slack
    worst = None
    bad = 0
    for k in want:
        for i, (e, v) in enumerate(zip(want[k], got[k])):
            if isinstance(e, float) and (math.isnan(e) or math.isnan(v)):
                ok = math.isnan(e) and math.isnan(v)
            elif e == v:
                ok = True
            else:
                ok = abs(v - e) <= atol + rtol * abs(e)
            if not ok:
                bad += 1
                if worst is None:
                    worst = (task["buffers"][k]["name"], i, e, v)
    return bad, worst


def check(task, work):
    i = task["id"]
    sources = {"reference": (LIB / "reference" / f"{i}.cu").read_text()}
    for case in ("faster", "wrong"):
        sources[case] = (LIB / "candidates" / i / f"{case}.cu").read_text()
    exes = {c: build(task, s, work, f"{i}_{c}") for c, s in sources.items()}
    sizes = task["sizes"][1:] + [MEDIUM[i]]
    problems, wrong_caught = [], []
    truths = 0
    rng = random.Random(i)
    for size in sizes:
        for c, fam0 in enumerate(FAMILIES):
            inputs = []
            fams = []
            for k, b in enumerate(task["buffers"]):
                if b["role"] == "out":
                    inputs.append(None)
                    continue
                fam = FAMILIES[(c + k) % len(FAMILIES)]
                fams.append(f"{b['name']} {fam}")
                inputs.append(draw(b, size, fam, rng))
            results = {}
            for case, (exe, launch) in exes.items():
                code, err, outs = run(exe, launch, task, size, inputs, work)
                results[case] = (code, err, outs)
            rc, rerr, ref = results["reference"]
            where = f"{size_text(size)} [{', '.join(fams)}]"
            if rc != 0:
                problems.append(f"reference broke its buffers at {where}: {rerr}")
                continue
            if size is not MEDIUM[i]:
                named = {}
                for k, b in enumerate(task["buffers"]):
                    if inputs[k] is not None:
                        named[b["name"]] = unpack(b["dtype"], pack(b["dtype"], inputs[k]))
                model = getattr(truth, i)(named, size)
                want = {k: model[b["name"]] for k, b in enumerate(task["buffers"]) if b["role"] != "in"}
                bad, worst = compare(task, want, ref, slack=2.0)
                truths += 1
                if bad:
                    problems.append(f"reference against the definition: {bad} misses at {where}, first {worst}")
            fc, ferr, fout = results["faster"]
            bad, worst = compare(task, ref, fout)
            if fc != 0 or bad:
                problems.append(f"faster: {ferr or ''} {bad} mismatches at {where}, first {worst}")
            wc, werr, wout = results["wrong"]
            bad, worst = compare(task, ref, wout)
            if wc != 0 or bad:
                wrong_caught.append(where)
    if not wrong_caught:
        problems.append("wrong: matched the reference everywhere")
    return problems, len(wrong_caught), len(sizes) * len(FAMILIES), truths


def size_text(s):
    return ",".join(f"{k}={v}" for k, v in s.items())


def main():
    only = set(sys.argv[1:])
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        for t in TASKS:
            if only and t["id"] not in only:
                continue
            problems, caught, cases, truths = check(t, work)
            status = "ok" if not problems else "FAIL"
            print(f"{t['id']:<20} {status:<5} reference = definition on {truths} cases; faster matches it on {cases}; "
                  f"wrong caught on {caught} of {cases}", flush=True)
            for p in problems[:5]:
                print(f"    {p}", flush=True)
            failed += bool(problems)
    print(f"{failed} task(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
