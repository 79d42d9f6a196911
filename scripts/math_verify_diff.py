#!/usr/bin/env python3
"""The differential test of AORLTA's Q&A verdicts against Math-Verify's.

    math_verify_diff.py --corpus PAIRS --ours VERDICTS [--report MD] [--baseline JSON]
                        [--check | --update] [--jobs N]

Reads the corpus (`examples/qa/corpus/pairs.jsonl`: id, class, reference, completion, truth,
note) and AORLTA's verdict on each pair (`aorlta bench qa --corpus … --verdicts …`), runs
Math-Verify on every pair (`parse` of the reference and of the completion, then `verify`), and
writes a report listing every disagreement, each classified:

  ours-right    the pair's truth (what a careful grader says) is AORLTA's verdict;
  theirs-right  the truth is Math-Verify's verdict;
  ambiguous     the corpus marks the pair ambiguous (graders could differ).

A reference with no `$`, `\\(`, `\\[` or `\\boxed` is given to Math-Verify inside `$…$`, as its
users give bare gold answers; completions are given as they are. Math-Verify's verdicts are
cached by (its version, reference, completion) under $AORLTA_MV_CACHE (default
~/.cache/aorlta/math-verify), so a second run only scores new pairs.

The report gives AORLTA's and Math-Verify's agreement with the careful grader (the pairs not
marked ambiguous), the wrong answers each accepts, and the two tools' agreement with each other.

--check fails (exit 1) when a pair the baseline lists as ours-right is no longer decided the
way its truth says, when AORLTA's agreement with the careful grader is under the baseline's
minimum, or when AORLTA accepts more than one wrong answer per 250 pairs. --update rewrites the
baseline from this run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter, defaultdict
from multiprocessing import Pool
from pathlib import Path

MV_TIMEOUT_S = 5


def wrap_reference(ref: str) -> str:
    if any(m in ref for m in ("$", "\\(", "\\[", "\\boxed")):
        return ref
    return f"${ref}$"


def _mv_one(pair: tuple[str, str]) -> str:
    from math_verify import parse, verify

    ref, completion = pair
    try:
        gold = parse(wrap_reference(ref), parsing_timeout=MV_TIMEOUT_S)
        pred = parse(completion, parsing_timeout=MV_TIMEOUT_S)
        ok = verify(gold, pred, timeout_seconds=MV_TIMEOUT_S)
        return "accept" if ok else "reject"
    except Exception as e:  # Math-Verify's own failures count as a rejection, and are shown.
        return f"reject:{type(e).__name__}"


def mv_version() -> str:
    from importlib.metadata import version

    return version("math-verify")


def cache_key(ver: str, ref: str, completion: str) -> str:
    h = hashlib.sha256()
    for part in (ver, ref, completion):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def run_math_verify(pairs: list[dict], jobs: int) -> dict[str, str]:
    ver = mv_version()
    cache_dir = Path(os.environ.get("AORLTA_MV_CACHE", Path.home() / ".cache/aorlta/math-verify"))
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache_file = cache_dir / "verdicts.jsonl"
    cache: dict[str, str] = {}
    if cache_file.exists():
        for line in cache_file.read_text().splitlines():
            try:
                e = json.loads(line)
                cache[e["key"]] = e["verdict"]
            except (ValueError, KeyError):
                continue
    keys = {p["id"]: cache_key(ver, p["reference"], p["completion"]) for p in pairs}
    todo = [p for p in pairs if keys[p["id"]] not in cache]
    if todo:
        print(f"math-verify {ver}: scoring {len(todo)} pairs ({len(pairs) - len(todo)} cached)", file=sys.stderr)
        with Pool(jobs) as pool:
            got = pool.map(_mv_one, [(p["reference"], p["completion"]) for p in todo], chunksize=16)
        with cache_file.open("a") as f:
            for p, v in zip(todo, got):
                cache[keys[p["id"]]] = v
                f.write(json.dumps({"key": keys[p["id"]], "verdict": v}) + "\n")
    else:
        print(f"math-verify {ver}: all {len(pairs)} pairs cached", file=sys.stderr)
    return {p["id"]: cache[keys[p["id"]]] for p in pairs}


def accepted(v: str) -> bool:
    return v == "accept"


def short(s: str, n: int = 110) -> str:
    s = s.replace("\n", "⏎")
    return s if len(s) <= n else s[: n - 1] + "…"


def cell(s: str) -> str:
    return "`" + short(s).replace("`", "'").replace("|", "\\|") + "`"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--ours", required=True, type=Path)
    ap.add_argument("--report", type=Path)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    args = ap.parse_args()

    pairs = [json.loads(l) for l in args.corpus.read_text().splitlines() if l.strip()]
    ours = {}
    for l in args.ours.read_text().splitlines():
        v = json.loads(l)
        ours[v["id"]] = v
    missing = [p["id"] for p in pairs if p["id"] not in ours]
    if missing:
        print(f"no AORLTA verdict for {len(missing)} pairs, e.g. {missing[:3]}", file=sys.stderr)
        return 2
    theirs = run_math_verify(pairs, args.jobs)

    n = len(pairs)
    agree = 0
    classes: dict[str, Counter] = defaultdict(Counter)
    disagreements: dict[str, list[dict]] = {"ours-right": [], "theirs-right": [], "ambiguous": []}
    wrong_accepted = {"ours": [], "theirs": []}
    unsettled = []
    for p in pairs:
        o, t = ours[p["id"]], theirs[p["id"]]
        oa, ta = accepted(o["verdict"]), accepted(t)
        c = classes[p["class"]]
        c["pairs"] += 1
        if o["verdict"] == "unsettled":
            unsettled.append(p["id"])
        if p["truth"] != "ambiguous":
            want = p["truth"] == "right"
            c["ours_true"] += oa == want
            c["theirs_true"] += ta == want
            c["decided"] += 1
            if oa and not want:
                wrong_accepted["ours"].append(p["id"])
                c["ours_wrong_accepted"] += 1
            if ta and not want:
                wrong_accepted["theirs"].append(p["id"])
                c["theirs_wrong_accepted"] += 1
        if oa == ta:
            agree += 1
            c["agree"] += 1
            continue
        if p["truth"] == "ambiguous":
            kind = "ambiguous"
        else:
            kind = "ours-right" if oa == (p["truth"] == "right") else "theirs-right"
        c[kind] += 1
        disagreements[kind].append({**p, "ours": o, "theirs": t})

    pct = 100.0 * agree / n if n else 0.0
    decided = sum(c["decided"] for c in classes.values())
    ours_true = sum(c["ours_true"] for c in classes.values())
    theirs_true = sum(c["theirs_true"] for c in classes.values())
    ours_pct = 100.0 * ours_true / max(decided, 1)
    theirs_pct = 100.0 * theirs_true / max(decided, 1)
    lines = [
        "# Differential test: AORLTA `normalised-match` against Math-Verify",
        "",
        "Written by `scripts/math-verify-diff.sh` (do not edit by hand). Corpus: "
        f"`{args.corpus.as_posix()}` ({n} pairs, made by `make_corpus.py`); AORLTA with "
        "`examples/qa/profile.yaml`; Math-Verify " + mv_version() + " (`parse` + `verify`). "
        "A verdict is accept or not; truth is the careful grader's verdict the corpus gives each pair.",
        "",
        f"- agreement with the careful grader (the {decided} pairs not marked ambiguous): "
        f"**AORLTA {ours_true} = {ours_pct:.2f}%**, Math-Verify {theirs_true} = {theirs_pct:.2f}%",
        f"- wrong answers accepted: **AORLTA {len(wrong_accepted['ours'])}**, "
        f"Math-Verify {len(wrong_accepted['theirs'])} (of {n} pairs; the goal is at most one per 250)",
        f"- agreement between AORLTA and Math-Verify: {agree} / {n} = {pct:.2f}%",
        f"- disagreements: {n - agree}, every one classified: ours-right {len(disagreements['ours-right'])}, "
        f"theirs-right {len(disagreements['theirs-right'])}, ambiguous {len(disagreements['ambiguous'])}",
        f"- AORLTA unsettled (reference unreadable): {len(unsettled)}",
        "",
        "| class | pairs | agree | ours-right | theirs-right | ambiguous | AORLTA = truth | Math-Verify = truth | wrong accepted (ours / theirs) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in classes.items():
        lines.append(
            f"| {name} | {c['pairs']} | {c['agree']} | {c['ours-right']} | {c['theirs-right']} | {c['ambiguous']} "
            f"| {c['ours_true']} / {c['decided']} | {c['theirs_true']} / {c['decided']} "
            f"| {c['ours_wrong_accepted']} / {c['theirs_wrong_accepted']} |"
        )
    for kind, title in (("ours-right", "AORLTA right, Math-Verify wrong"),
                        ("theirs-right", "Math-Verify right, AORLTA wrong"),
                        ("ambiguous", "Ambiguous (graders could differ)")):
        rows = disagreements[kind]
        lines += ["", f"## {kind}: {title} ({len(rows)})", ""]
        if not rows:
            lines.append("None.")
            continue
        lines += ["| id | truth | reference | completion (end) | AORLTA (answer) | Math-Verify | note |",
                  "|---|---|---|---|---|---|---|"]
        for d in rows:
            o = d["ours"]
            ours_cell = o["verdict"] + (f" {o['reason']}" if o.get("reason") else "")
            if o.get("answer") is not None:
                ours_cell += " " + cell(o["answer"])
            lines.append(
                f"| {d['id']} | {d['truth']} | {cell(d['reference'])} | {cell(d['completion'][-110:])} "
                f"| {ours_cell} | {d['theirs']} | {d['note'] or ''} |"
            )
    report = "\n".join(lines) + "\n"
    if args.report:
        args.report.write_text(report)
    print("\n".join(lines[4:11]))

    failures = []
    if args.baseline and args.baseline.exists() and not args.update:
        base = json.loads(args.baseline.read_text())
        by_id = {p["id"]: p for p in pairs}
        for pid in base["ours_right"]:
            p = by_id.get(pid)
            if p is None:
                failures.append(f"{pid}: in the baseline but not in the corpus")
                continue
            if accepted(ours[pid]["verdict"]) != (p["truth"] == "right"):
                failures.append(f"{pid}: was ours-right, now AORLTA says {ours[pid]['verdict']} "
                                f"({ours[pid].get('reason')}) where the truth is {p['truth']}")
        if ours_pct < base["min_agreement_pct"]:
            failures.append(f"agreement with the careful grader {ours_pct:.2f}% is under "
                            f"{base['min_agreement_pct']}%")
        if len(wrong_accepted["ours"]) * 250 > n:
            failures.append(f"AORLTA accepts {len(wrong_accepted['ours'])} wrong answers in {n} pairs "
                            "(more than one per 250): " + ", ".join(wrong_accepted["ours"][:10]))
    if args.update and args.baseline:
        args.baseline.write_text(json.dumps({
            "min_agreement_pct": 95.0,
            "ours_right": sorted(d["id"] for d in disagreements["ours-right"]),
        }, indent=1) + "\n")
        print(f"baseline written: {args.baseline}")
    if failures:
        print(f"\n{len(failures)} failures:", file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        return 1 if args.check else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
