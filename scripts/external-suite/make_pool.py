#!/usr/bin/env python3
"""cases.jsonl -> tasks.jsonl (reference = gold, verbatim) and pool.jsonl (completion = pred,
verbatim: Math-Verify's tests hand `pred` to its parser as the whole model output, so it is the
completion as it is, not wrapped in \\boxed{}), and the run configs for the example profile and
for a copy of it with the `number` answer form switched on (a sensitivity check).

Usage: make_pool.py WORK PROFILE   (WORK holds cases.jsonl; PROFILE is examples/qa/profile.yaml)
"""
import json
import os
import sys

work, profile = sys.argv[1], os.path.abspath(sys.argv[2])
cases = [json.loads(l) for l in open(os.path.join(work, "cases.jsonl"))]
with open(os.path.join(work, "tasks.jsonl"), "w") as t, open(os.path.join(work, "pool.jsonl"), "w") as p:
    for c in cases:
        t.write(json.dumps({"id": c["id"], "prompt": f"Math-Verify {c['file']}:{c['line']} ({c['function']})",
                            "answer": c["gold"]}, ensure_ascii=False) + "\n")
        p.write(json.dumps({"task": c["id"], "completion": c["pred"], "id": c["id"] + "-pred"},
                           ensure_ascii=False) + "\n")
text = open(profile).read()
number = text.replace("forms: [boxed, statement, latex, bare]", "forms: [boxed, statement, latex, bare, number]")
if number == text:
    sys.exit(f"{profile}: no `forms: [boxed, statement, latex, bare]` line to extend")
open(os.path.join(work, "profile-number.yaml"), "w").write(number)
for name, prof, out in [("config.yaml", profile, "run"), ("config-number.yaml", "profile-number.yaml", "run-number")]:
    with open(os.path.join(work, name), "w") as f:
        f.write(f"# Math-Verify's own test cases scored by AORLTA.\ntasks: tasks.jsonl\npool: pool.jsonl\n"
                f"profile: {prof}\nout: {out}\nconcurrency: 2\n")
print(len(cases), "tasks and pool lines")
