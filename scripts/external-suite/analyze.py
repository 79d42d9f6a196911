#!/usr/bin/env python3
"""Join cases.jsonl with an AORLTA run's rewards.jsonl; print the figures; write results.jsonl.
Usage: analyze.py RUN_DIR [--dump]"""
import json, os, sys
D = os.environ.get("WORK") or os.getcwd()
run = sys.argv[1]
cases = {c["id"]: c for c in map(json.loads, open(f"{D}/cases.jsonl"))}
rows = []
for e in map(json.loads, open(f"{run}/rewards.jsonl")):
    c = cases[e["task"]]
    legs = {l["name"]: l for l in e["legs"]}
    p, n = legs["parse"], legs["ref.normalised"]
    if not e["scored"]:
        verdict = "unsettled"
    else:
        verdict = "accept" if n["state"] == "clean" else "reject"
    failing = p if p["state"] != "clean" else n
    reason = ",".join(r["code"] for r in failing.get("reasons", [])) if failing["state"] != "clean" else ""
    rows.append({"id": c["id"], "file": c["file"], "line": c["line"], "function": c["function"],
                 "expected": c["expected"], "verdict": verdict,
                 "agree": (verdict == "accept") == c["expected"] and verdict != "unsettled",
                 "leg": failing["name"] if reason else "", "reason": reason,
                 "parsed": (p.get("detail") or {}).get("answer"),
                 "form": (p.get("detail") or {}).get("form"),
                 "reference_read": (n.get("detail") or {}).get("reference"),
                 "detail": "; ".join(r.get("detail", "") for r in failing.get("reasons", [])),
                 "gold": c["gold"], "pred": c["pred"], "duplicate_of": c["duplicate_of"]})
N = len(rows)
assert N == len(cases), (N, len(cases))
def cnt(f): return sum(1 for r in rows if f(r))
agree = cnt(lambda r: r["agree"])
wa = cnt(lambda r: r["verdict"] == "accept" and not r["expected"])
rr = cnt(lambda r: r["verdict"] == "reject" and r["expected"])
un = cnt(lambda r: r["verdict"] == "unsettled")
un_t = cnt(lambda r: r["verdict"] == "unsettled" and r["expected"])
unread = cnt(lambda r: r["reason"] == "answer-unreadable")
noans = cnt(lambda r: r["reason"] in ("no-answer", "answer-too-long"))
ET = cnt(lambda r: r["expected"]); EF = N - ET
print(f"cases {N} (expected true {ET}, false {EF})")
print(f"agreement {agree}/{N} = {100*agree/N:.2f}%")
print(f"wrong accepted {wa}/{N} (of {EF} expected-false); right rejected {rr}/{N}; "
      f"unsettled {un} ({un_t} expected true, {un-un_t} expected false)")
print(f"  of the rejections of expected-true: answer-unreadable {cnt(lambda r: r['expected'] and r['reason']=='answer-unreadable')}, "
      f"no-answer/too-long {cnt(lambda r: r['expected'] and r['reason'] in ('no-answer','answer-too-long'))}, "
      f"wrong-answer {cnt(lambda r: r['expected'] and r['reason']=='wrong-answer')}")
settled = N - un
print(f"agreement over settled {agree}/{settled} = {100*agree/settled:.2f}%")
uniq = [r for r in rows if not r["duplicate_of"]]
ua = sum(r["agree"] for r in uniq)
print(f"unique pairs {len(uniq)}: agreement {ua}/{len(uniq)} = {100*ua/len(uniq):.2f}%, "
      f"wrong accepted {sum(1 for r in uniq if r['verdict']=='accept' and not r['expected'])}")
byfile = {}
for r in rows:
    b = byfile.setdefault(r["file"], [0, 0]); b[0] += r["agree"]; b[1] += 1
for f, (a, n) in byfile.items(): print(f"  {f}: {a}/{n}")
with open(f"{run}/results.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
if "--dump" in sys.argv:
    for r in rows:
        if not r["agree"]:
            print(f"--- {r['id']} {r['file']}:{r['line']} exp={r['expected']} got={r['verdict']} "
                  f"{r['leg']}:{r['reason']} form={r['form']}")
            print(f"  gold={r['gold'][:160]!r}\n  pred={r['pred'][:160]!r}\n  parsed={r['parsed']!r} ref={r['reference_read']!r}\n  {r['detail'][:200]}")
