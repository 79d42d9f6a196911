#!/usr/bin/env python3
"""Writes the task library from library.py (standard library only; the output is deterministic):

    tasks/<id>.yaml                 the task files (prompt, buffers, sizes, geometry, tolerance)
    candidates/<id>/wrong.cu        the reference with one edit that makes it wrong
    validation.yaml                 the suite: each task's faster and wrong candidates
    pool.jsonl                      a scoring pool: each task's reference, faster and wrong kernels

The references (reference/<id>.cu) and the faster candidates (candidates/<id>/faster.cu) are
written by hand; this script only reads them.

    python3 make_library.py                       # write the files above
    python3 make_library.py --check               # exit 1 when any of them is stale
    python3 make_library.py --index [CHECK.json]  # print docs/TASKS.md; with the JSON that
                                                  # `aorlta task check --json` wrote, the times
"""

import argparse
import json
import sys
import textwrap
from pathlib import Path

from library import TASKS

HERE = Path(__file__).resolve().parent
WIDTH = 98


def num(x):
    """A float as YAML and the prompts write it."""
    if x == 0:
        return "0.0"
    if 1e-2 <= abs(x) < 1e6:
        return str(float(x))
    return f"{x:.1e}".replace("e-0", "e-").replace("e+0", "e+")


def law(init):
    kind, a, b = init
    if kind == "uniform":
        return f"{{kind: uniform, lo: {num(a)}, hi: {num(b)}}}"
    return f"{{kind: normal, mean: {num(a)}, std: {num(b)}}}"


def law_text(b):
    kind, lo, hi = b["init"]
    ints = b["dtype"] in ("i32", "u32", "i64")
    if kind == "uniform":
        if ints:
            return f"`{b['name']}` uniform integers in [{int(lo)}, {int(hi)}]"
        return f"`{b['name']}` uniform in [{num(lo)}, {num(hi)}]"
    return f"`{b['name']}` normal with mean {num(lo)} and standard deviation {num(hi)} (cut at 6 deviations)"


def size_text(size):
    return ", ".join(f"{k} = {v}" for k, v in size.items())


def para(text, indent="  "):
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def names(items):
    q = [f"`{x}`" for x in items]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def prompt(t):
    ins = [b for b in t["buffers"] if b["role"] == "in"]
    outs = [b for b in t["buffers"] if b["role"] != "in"]
    inouts = [b for b in outs if b["role"] == "inout"]
    atol, rtol, why = t["tol"]
    parts = [para(f"Write a CUDA kernel that {t['definition']}")]
    if atol == 0 and rtol == 0:
        parts.append(para(f"Outputs must match the reference exactly ({why})."))
    else:
        parts.append(para(
            f"Outputs are compared with atol = {num(atol)}, rtol = {num(rtol)}: |got - expected| <= atol + "
            f"rtol * |expected|, NaN exactly where the reference has NaN ({why})."))
    parts.append(para('Define exactly this kernel, with C++ linkage (not extern "C") and these parameter types:'))
    parts.append(f"      __global__ {t['signature']}")
    sentence = f"{names([b['name'] for b in ins])} {'is an input' if len(ins) == 1 else 'are inputs'} and must not be modified"
    if inouts:
        sentence += f"; {names([b['name'] for b in inouts])} {'is' if len(inouts) == 1 else 'are'} read and updated in place"
    ranges = ", ".join(f"{b['name']}[0..{b['len']})" for b in outs)
    parts.append(para(f"{sentence}; write nothing outside {ranges}."))
    drawn = [b for b in t["buffers"] if b["role"] != "out"]
    specials = sorted({s for b in drawn for s in b["special"]})
    special_text = ""
    if specials:
        holders = [b["name"] for b in drawn if b["special"]]
        special_text = f", and the special values {', '.join(specials)} in {names(holders)}"
    parts.append(para(
        "Inputs: " + "; ".join(law_text(b) for b in drawn) + ". Checked launches also draw every input from the "
        "corners of that domain: values all near its top or its bottom, rows confined to narrow windows, runs of "
        "one value, sign patterns, magnitudes spread over many binary orders" + special_text +
        ". The kernel must be right on all of them, not only on the typical draw."))
    parts.append(para(
        "Your source is compiled alone with `nvcc --cubin` for the GPU; no host code you write is ever compiled "
        "into anything that runs, so do not write a main() or launch code. Use only device code and the CUDA headers."))
    shared = t.get("shared", "0")
    shared_text = "no dynamic shared memory" if shared == "0" else f"{shared} bytes of dynamic shared memory"
    parts.append(para(
        f"Launch geometry: by default the kernel is launched with grid ({', '.join(t['grid'])}) and block "
        f"({', '.join(t['block'])}), {shared_text}. To choose your own, define in the same source"))
    parts.append("      __device__ unsigned int aorlta_launch[7] = {grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_shared_bytes};")
    parts.append(para(
        "It is read as data and used for every problem size, so a kernel that sets it must handle any size "
        "(for example with a grid-stride loop). At most 1024 threads per block and 48 KiB of dynamic shared "
        "memory. Do not assume the pointers are aligned to more than 4 bytes."))
    others = "; ".join(size_text(s) for s in t["sizes"][1:])
    parts.append(para(
        f"The kernel is checked against a reference on several shapes ({others}; and the timed one) and timed "
        f"against it at {size_text(t['sizes'][0])}. The reference {t['reference']}; a good kernel: {t['good']}. "
        "Answer with one ```cuda code block holding the complete source."))
    return "\n\n".join(parts) + "\n"


def task_yaml(t):
    atol, rtol, why = t["tol"]
    kname = t["signature"].split("(")[0].split()[-1]
    lines = [
        f"# Task `{t['id']}` ({t['category']}). Written by make_library.py from library.py; edit there.",
        *textwrap.wrap(f"The reference {t['reference']}.", WIDTH, initial_indent="# ", subsequent_indent="# "),
        f"id: {t['id']}",
        "prompt: |",
        *[("  " + l if l and not l.startswith("  ") else l) for l in prompt(t).rstrip("\n").split("\n")],
        f"signature: \"{t['signature']}\"",
        f"reference: ../reference/{kname}.cu",
        "buffers:",
    ]
    for b in t["buffers"]:
        fields = [f"name: {b['name']}", f"dtype: {b['dtype']}", f"len: \"{b['len']}\"", f"role: {b['role']}"]
        if b["init"] is not None:
            fields.append(f"init: {law(b['init'])}")
        if b["special"]:
            fields.append(f"special: [{', '.join(b['special'])}]")
        lines.append(f"  - {{{', '.join(fields)}}}")
    lines.append("scalars:")
    for k, v in t["scalars"].items():
        lines.append(f"  {k}: {v}")
    lines.append("sizes:")
    for s in t["sizes"]:
        lines.append("  - {" + ", ".join(f"{k}: {v}" for k, v in s.items()) + "}")
    lines.append("grid: [" + ", ".join(f'"{g}"' for g in t["grid"]) + "]")
    lines.append("block: [" + ", ".join(f'"{g}"' for g in t["block"]) + "]")
    lines.append(f"shared_bytes: \"{t.get('shared', '0')}\"")
    lines.append(f"tolerance: {{atol: {num(atol)}, rtol: {num(rtol)}}}")
    return "\n".join(lines) + "\n"


def strip_header(text):
    lines = text.splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        i += 1
    return "\n".join(lines[i:]).lstrip("\n")


def wrong_cu(t):
    ref = (HERE / "reference" / f"{t['id']}.cu").read_text()
    body = strip_header(ref)
    edits = [t["wrong"][:2]] + ([t["wrong2"]] if "wrong2" in t else [])
    for find, repl in edits:
        if body.count(find) < 1:
            sys.exit(f"{t['id']}: the wrong edit no longer applies: {find!r}")
        body = body.replace(find, repl)
    head = "\n".join(textwrap.wrap(f"{t['id']}/wrong: the reference with one mistake: it {t['wrong'][2]}.",
                                   WIDTH, initial_indent="// ", subsequent_indent="// ")) + "\n"
    head += "// Verdict: ref.native broke (output-mismatch).\n"
    return head + body


SUITE_HEAD = """\
# The task library's validation suite: `aorlta validate --suite examples/library/validation.yaml
# [--gpu | --fake-gpu]`. Written by make_library.py from library.py; edit there.
#
# For every task: `faster`, an honest faster kernel (reads candidates/<task>/faster.cu), and
# `wrong`, the reference with one mistake (candidates/<task>/wrong.cu). Memory-bound tasks, whose
# honest gain is a few tens of per cent, time their faster kernel at ratio 1.0 (as the kernels
# suite does for vector_add); the others at the profile's 1.1. `fake:` is how each candidate
# behaves on the CPU-simulated fake device (CI): speed multipliers, and for the wrong ones a
# wrong output (`ignores-inputs`), wrong only on the non-typical input families
# (`typical-only`, as the kernels that are right only on the typical draw), or right only on
# one size (`hardcoded-size`, for the kernel that is wrong only when k is not a multiple of 16).
# The reference against itself (A/A) is `aorlta task check`'s, not this suite's.
tasks: tasks
candidates: candidates
profile: profile.yaml
kernel:
  compile-timeout-s: 60
  compile-memory-mb: 8192
cases:
"""


def suite_yaml():
    out = [SUITE_HEAD]
    for t in TASKS:
        i = t["id"]
        if t["ratio"] == 1.0:
            faster = (f"  - task: {i}\n    case: faster\n"
                      f"    note: \"memory-bound: a few tens of per cent faster, timed at ratio 1.0\"\n"
                      f"    time: {{ratio: 1.0}}\n"
                      f"    expect: {{run: clean, time: clean faster, s: [1.0, 100.0], reward: [0.75, 1.0]}}\n"
                      f"    fake: {{speed: 0.85}}\n")
        else:
            faster = (f"  - task: {i}\n    case: faster\n"
                      f"    note: \"a correct faster kernel is faster at ratio 1.1\"\n"
                      f"    expect: {{run: clean, time: clean faster, s: [1.1, 100.0], reward: [0.75, 1.0]}}\n"
                      f"    fake: {{speed: 0.6}}\n")
        wrong = (f"  - task: {i}\n    case: wrong\n"
                 f"    note: \"{t['wrong'][2]}\"\n"
                 f"    expect: {{run: broke output-mismatch, reward: [-0.5, -0.5]}}\n"
                 f"    fake: {{behaviour: {t['fake_wrong']}}}\n")
        out.append(f"\n  # --- {i} ({t['category']})\n" + faster + wrong)
    return "".join(out)


def pool_jsonl():
    lines = []
    for t in TASKS:
        i = t["id"]
        ref = strip_header((HERE / "reference" / f"{i}.cu").read_text())
        faster = strip_header((HERE / "candidates" / i / "faster.cu").read_text())
        wrong = strip_header(wrong_cu(t))
        for case, code, prose in [
            ("naive", ref, "Here is a straightforward kernel."),
            ("fast", faster, "Here is an optimised kernel."),
            ("wrong", wrong, "Here is my kernel."),
        ]:
            completion = f"{prose}\n\n```cuda\n{code.rstrip()}\n```\n"
            lines.append(json.dumps({"task": i, "completion": completion, "id": f"{i}/{case}"}))
    return "\n".join(lines) + "\n"


def outputs():
    files = {}
    for t in TASKS:
        files[f"tasks/{t['id']}.yaml"] = task_yaml(t)
        files[f"candidates/{t['id']}/wrong.cu"] = wrong_cu(t)
    files["validation.yaml"] = suite_yaml()
    files["pool.jsonl"] = pool_jsonl()
    return files


def fmt_size(s):
    return " x ".join(str(v) for v in s.values()) + " (" + ", ".join(s.keys()) + ")"


def index(check_json):
    times = {}
    device = None
    if check_json:
        doc = json.loads(Path(check_json).read_text())
        device = doc.get("device") if isinstance(doc, dict) else None
        rows = doc["tasks"] if isinstance(doc, dict) else doc
        # A fake device's times are a model's, not a measurement.
        if device and "fake" not in device.lower():
            for r in rows:
                times[r["id"]] = r
        else:
            device = None
    profile_ratio = 1.1
    out = [
        "# The task library",
        "",
        "Generated by `python3 examples/library/make_library.py --index CHECK.json` from",
        "`examples/library/library.py` (the task files are written from the same table) and the JSON",
        "that `aorlta task check --gpu --json CHECK.json examples/library/tasks` wrote. Do not edit by hand.",
        "",
        f"{len(TASKS)} single-operator CUDA tasks, written from the operators' definitions. Each has a",
        "reference kernel (reasonable, not the slowest possible), an honest faster candidate and a wrong",
        "one in `examples/library/validation.yaml`, and is scored with the `library` profile",
        f"(`examples/library/profile.yaml`: ratio {profile_ratio}; the reward reaches 1.0 at twice the ratio).",
        "",
        "Reference time: the median of the reference's launches in its A/A timing (the reference against",
        "itself through the timing leg: fresh inputs, fresh module and cold L2 for every launch), with the",
        "judge's noise floor and the A/A speedup s, which must come out `not-faster`.",
        "",
    ]
    if device:
        out.append(f"Measured on: {device}.")
    else:
        out.append("Reference times: not measured yet (no GPU run behind this file; docs/VALIDATION.md,")
        out.append("\"The task library and `aorlta task check`\", gives the commands that measure them).")
    out.append("")
    out.append("| task | category | timed size | other sizes | tolerance (atol / rtol) | reference time on the H200 | A/A s (noise) | ratio (faster case) |")
    out.append("|---|---|---|---|---|---|---|---|")
    for t in TASKS:
        atol, rtol, _ = t["tol"]
        tol = "exact" if atol == 0 and rtol == 0 else f"{num(atol)} / {num(rtol)}"
        r = times.get(t["id"])
        aa = (r or {}).get("aa") or {}
        if aa.get("median_s") is not None:
            ref_time = f"{aa['median_s'] * 1e6:.1f} µs"
            s = f"{aa['s']:.3f} ({aa['floor'] * 100:.1f} %)" if aa.get("s") is not None and aa.get("floor") is not None else "-"
            if r and not r.get("pass"):
                s += " FAIL"
        else:
            ref_time, s = "not measured", "-"
        other = "; ".join(fmt_size(x) for x in t["sizes"][1:])
        out.append(f"| `{t['id']}` | {t['category']} | {fmt_size(t['sizes'][0])} | {other} | {tol} | {ref_time} | {s} | {profile_ratio} ({t['ratio']}) |")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--index", nargs="?", const="", default=None, metavar="CHECK.json")
    a = ap.parse_args()
    if a.index is not None:
        sys.stdout.write(index(a.index or None))
        return 0
    files = outputs()
    stale = [p for p, text in files.items() if not (HERE / p).exists() or (HERE / p).read_text() != text]
    if a.check:
        for p in stale:
            print(f"stale: examples/library/{p} (run python3 examples/library/make_library.py)")
        return 1 if stale else 0
    for p in stale:
        (HERE / p).parent.mkdir(parents=True, exist_ok=True)
        (HERE / p).write_text(files[p])
    print(f"{len(stale)} of {len(files)} files written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
