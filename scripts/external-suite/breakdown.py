#!/usr/bin/env python3
"""Misses of RUN_DIR/results.jsonl by class (classes.json, hand-assigned by case id); writes
RUN_DIR/breakdown.md and fails if a miss has no class or a class holds a non-miss."""
import json, os, sys
D = os.environ.get("WORK") or os.getcwd(); run = sys.argv[1]
rows = {r["id"]: r for r in map(json.loads, open(f"{run}/results.jsonl"))}
classes = json.load(open(f"{D}/classes.json"))
misses = {k for k, r in rows.items() if not r["agree"]}
assigned = [i for ids in classes.values() for i in ids]
assert len(assigned) == len(set(assigned)), "an id in two classes"
extra = set(assigned) - misses; missing = misses - set(assigned)
def short(s, n=90):
    s = "".join(ch if ch >= " " or ch == "\n" else ascii(ch)[1:-1] for ch in s).replace("\n", "\\n")
    return s if len(s) <= n else s[:40] + " … " + s[-(n - 43):]
out = [f"| class | misses | right rejected | wrong accepted | unsettled |", "|---|---|---|---|---|"]
body = []
for name, ids in sorted(classes.items(), key=lambda kv: -len([i for i in kv[1] if i in misses])):
    ids = [i for i in ids if i in misses]
    if not ids: continue
    rr = sum(rows[i]["verdict"] == "reject" for i in ids)
    wa = sum(rows[i]["verdict"] == "accept" for i in ids)
    un = sum(rows[i]["verdict"] == "unsettled" for i in ids)
    out.append(f"| {name.replace('|', chr(92)+'|')} | {len(ids)} | {rr} | {wa} | {un} |")
    body.append(f"\n### {name} ({len(ids)}: {', '.join(ids)})\n")
    for i in ids[:3]:
        r = rows[i]
        said = r["verdict"] + (f" — `{r['leg']}` {r['reason']}" if r["reason"] else "")
        body.append(f"- `{i}` {r['file']}:{r['line']} expected **{str(r['expected']).lower()}**, "
                    f"AORLTA {said}; parsed `{short(r['parsed'] or '-', 60)}`"
                    + (f", reference read `{short(r['reference_read'], 60)}`" if r["reference_read"] else ""))
        body.append(f"  - gold: `{short(r['gold'])}`\n  - pred: `{short(r['pred'])}`")
        if r["detail"]: body.append(f"  - detail: {short(r['detail'], 140)}")
if missing: out.append(f"| UNCLASSIFIED | {len(missing)}: {sorted(missing)} | | | |")
if extra: out.append(f"| (classified but agreeing now) | {sorted(extra)} | | | |")
open(f"{run}/breakdown.md", "w").write("\n".join(out + body) + "\n")
print("\n".join(out)); sys.exit(1 if missing else 0)
