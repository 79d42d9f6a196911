#!/usr/bin/env python3
"""The differential test of AORLTA's Q&A verdicts against the MATH benchmark's grader.

    hendrycks_math_diff.py extract [--test-file PATH] --cases JSON
    hendrycks_math_diff.py corpus --cases JSON --out PAIRS
    hendrycks_math_diff.py report --cases JSON --ours VERDICTS --classes JSON --baseline JSON
                                  --report MD [--check | --update]

The grader is `is_equiv` of hendrycks/math (`modeling/math_equivalence.py`): string
normalisation, then equality. verl's MATH reward (`verl/utils/reward_score/math.py`),
lm-evaluation-harness's `hendrycks_math` and many trainers' graders are copies of it. Its own
test cases (`modeling/math_equivalence_test.py`, MIT licence) are vendored in
`examples/qa/hendrycks-math/cases.json` with their licence beside them; `extract` rebuilds that
file from the test file (given, or fetched at the pinned commit into
~/.cache/aorlta/hendrycks-math).

Each case is `is_equiv(test_in, test_out)` with the verdict its test asserts. `is_equiv`
normalises both sides alike and compares them, so it is symmetric, and every case is scored in
both directions (reference `test_in`, answer `test_out`, and the other way round): a directed
pair's id is the test's name (a number after it when a test has several) and `:ab` or `:ba`.

`report` compares AORLTA's verdict on each directed pair (`aorlta bench qa --corpus …
--verdicts …`, with `examples/qa/hendrycks-math/profile.yaml`: the answer handed whole, as the
grader's callers hand it) with the grader's, and writes a report: agreement, the wrong answers
each accepts by the other's reckoning, and every disagreement with its class from
`classes.json`:

  aorlta-wrong    AORLTA's verdict is wrong;
  their-policy    the grader's verdict follows a policy of its own that AORLTA decides otherwise
                  on purpose (docs/REWARDS.md says which);
  ambiguous       careful graders could go either way.

--check fails (exit 1) when a pair the baseline lists as agreeing disagrees, when a
disagreement has no class, or when AORLTA accepts a pair classed aorlta-wrong. --update
rewrites the baseline from this run.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import urllib.request
from collections import Counter
from pathlib import Path

UPSTREAM = "hendrycks/math"
TEST_PATH = "modeling/math_equivalence_test.py"
COMMIT = "5f3bf91d13367550bed100240554fd11c25abe48"
CLASSES = ("aorlta-wrong", "their-policy", "ambiguous")


def fetch_test_file() -> Path:
    cache = Path.home() / ".cache/aorlta/hendrycks-math" / COMMIT / Path(TEST_PATH).name
    if not cache.exists():
        url = f"https://raw.githubusercontent.com/{UPSTREAM}/{COMMIT}/{TEST_PATH}"
        cache.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(url, timeout=30) as r:
            cache.write_bytes(r.read())
    return cache


def extract_cases(source: str) -> list[dict]:
    """The `assertTrue/assertFalse(is_equiv(test_in, test_out))` calls of each test method,
    with the string values `test_in` and `test_out` hold at that point."""
    cases = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
            continue
        names: dict[str, str] = {}
        found = []
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                for target in stmt.targets:
                    if isinstance(target, ast.Name) and isinstance(stmt.value.value, str):
                        names[target.id] = stmt.value.value
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            if call.func.attr not in ("assertTrue", "assertFalse") or not call.args:
                continue
            inner = call.args[0]
            if not (isinstance(inner, ast.Call) and len(inner.args) == 2):
                continue
            a, b = (names.get(x.id) if isinstance(x, ast.Name) else None for x in inner.args)
            if a is None or b is None:
                continue
            found.append({"test_in": a, "test_out": b, "equal": call.func.attr == "assertTrue"})
        for k, case in enumerate(found):
            case_id = node.name if len(found) == 1 else f"{node.name}-{k + 1}"
            cases.append({"id": case_id, **case})
    return cases


def directed(cases: list[dict]) -> list[dict]:
    out = []
    for c in cases:
        for suffix, ref, ans in (("ab", c["test_in"], c["test_out"]), ("ba", c["test_out"], c["test_in"])):
            out.append({"id": f"{c['id']}:{suffix}", "reference": ref, "completion": ans, "equal": c["equal"]})
    return out


def cmd_extract(args: argparse.Namespace) -> int:
    path = Path(args.test_file) if args.test_file else fetch_test_file()
    cases = extract_cases(path.read_text())
    doc = {
        "source": {
            "repository": f"https://github.com/{UPSTREAM}",
            "path": TEST_PATH,
            "commit": COMMIT,
            "license": "MIT (LICENSE.hendrycks-math beside this file)",
            "copyright": "Copyright (c) 2021 Dan Hendrycks",
            "grader": "modeling/math_equivalence.py, is_equiv",
        },
        "cases": cases,
    }
    Path(args.cases).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases from {path} written to {args.cases}")
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    cases = json.loads(Path(args.cases).read_text())["cases"]
    with open(args.out, "w") as f:
        for p in directed(cases):
            row = {"id": p["id"], "class": "hendrycks-math", "reference": p["reference"], "completion": p["completion"]}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


def md(s: str) -> str:
    return "`" + s.replace("|", "\\|").replace("`", "'") + "`" if s.strip() else "(blank)"


def cmd_report(args: argparse.Namespace) -> int:
    pairs = directed(json.loads(Path(args.cases).read_text())["cases"])
    ours = {}
    for line in Path(args.ours).read_text().splitlines():
        v = json.loads(line)
        ours[v["id"]] = v
    classes = json.loads(Path(args.classes).read_text())
    baseline_path = Path(args.baseline)
    baseline = json.loads(baseline_path.read_text()) if baseline_path.exists() else {"agree": []}

    agree, disagree = [], []
    for p in pairs:
        v = ours[p["id"]]
        (agree if (v["verdict"] == "accept") == p["equal"] else disagree).append(p)
    n = len(pairs)
    problems = []
    counts: Counter[str] = Counter()
    rows = []
    for p in disagree:
        v = ours[p["id"]]
        entry = classes.get(p["id"]) or classes.get(p["id"].rsplit(":", 1)[0])
        cls = entry["class"] if entry else "unclassified"
        if cls not in CLASSES:
            problems.append(f"{p['id']}: no class (add it to {args.classes})")
            cls = "unclassified"
        if cls == "aorlta-wrong" and v["verdict"] == "accept":
            problems.append(f"{p['id']}: AORLTA accepts a wrong answer")
        counts[cls] += 1
        ours_text = v["verdict"] + (f" ({v['reason']})" if v.get("reason") else "")
        theirs = "equal" if p["equal"] else "not equal"
        why = entry.get("why", "") if entry else ""
        rows.append(f"| {p['id']} | {md(p['reference'])} | {md(p['completion'])} | {theirs} | {ours_text} | {cls} | {why} |")
    agreeing = {p["id"] for p in agree}
    regressed = [i for i in baseline.get("agree", []) if i not in agreeing]
    problems += [f"{i}: agreed in the baseline, disagrees now" for i in regressed]
    stale = sorted(k for k in classes if not k.startswith("_") and not any(p["id"] == k or p["id"].rsplit(":", 1)[0] == k for p in disagree))
    their_eq = sum(p["equal"] for p in pairs)
    ours_accept_their_reject = sum(1 for p in disagree if not p["equal"])
    ours_reject_their_accept = sum(1 for p in disagree if p["equal"])

    summary = [
        f"- directed pairs: {n} ({n // 2} test cases of `{TEST_PATH}` at {COMMIT[:12]}, both ways); "
        f"the grader's tests say equal for {their_eq}, not equal for {n - their_eq}",
        f"- agreement between AORLTA and the MATH grader: **{len(agree)} / {n} = {100 * len(agree) / n:.2f}%**",
        f"- AORLTA accepts where the grader rejects: {ours_accept_their_reject}; rejects where it accepts: {ours_reject_their_accept}",
        f"- disagreements: {len(disagree)}, classified: "
        + ", ".join(f"{c} {counts[c]}" for c in (*CLASSES, "unclassified")),
        f"- AORLTA wrong accepts (aorlta-wrong and accepted): {sum(1 for x in problems if 'accepts a wrong' in x)}",
    ]
    if stale:
        summary.append(f"- classes no longer needed (the pairs agree now): {', '.join(stale)}")
    report = [
        "# AORLTA against the MATH grader's own tests",
        "",
        "Written by `scripts/hendrycks-math-diff.sh`; do not edit. The grader: `is_equiv` of",
        f"[{UPSTREAM}](https://github.com/{UPSTREAM}) (`modeling/math_equivalence.py`), the one",
        "verl's MATH reward and lm-evaluation-harness's `hendrycks_math` copy. Its test cases are",
        "vendored in `cases.json` (MIT licence, `LICENSE.hendrycks-math`); AORLTA reads each answer",
        "handed whole (`profile.yaml`, parse form `whole`).",
        "",
        *summary,
        "",
        "| pair | reference | answer | MATH grader | AORLTA | class | why |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]
    Path(args.report).write_text("\n".join(report))
    print("\n".join(summary))
    print(f"report written to {args.report}")
    if args.update:
        baseline_path.write_text(json.dumps({"agree": sorted(agreeing)}, indent=1) + "\n")
        print(f"baseline written to {baseline_path}: {len(agreeing)} agreeing pairs")
    if args.check and problems:
        print("check failed:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--test-file")
    e.add_argument("--cases", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--cases", required=True)
    c.add_argument("--out", required=True)
    r = sub.add_parser("report")
    for a in ("--cases", "--ours", "--classes", "--baseline", "--report"):
        r.add_argument(a, required=True)
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    args = ap.parse_args()
    return {"extract": cmd_extract, "corpus": cmd_corpus, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
