#!/usr/bin/env python3
"""Extract (gold, pred, expected) cases from Math-Verify's own test suite by parsing the test
modules with `ast` (nothing is imported or run). Writes cases.jsonl and extraction.json.

Usage: extract_cases.py GIT_DIR OUT_DIR
  GIT_DIR: a bare git directory of huggingface/Math-Verify (`git clone --bare`); HEAD is read.
"""
import ast
import json
import math
import subprocess
import sys

GIT, OUT = sys.argv[1], sys.argv[2]


def git(*args):
    return subprocess.run(["git", "--git-dir", GIT, *args], check=True,
                          capture_output=True, text=True).stdout


COMMIT = git("rev-parse", "HEAD").strip()
FILES = [p for p in git("ls-tree", "-r", "--name-only", "HEAD", "tests/").split()
         if p.endswith(".py") and p.split("/")[-1].startswith("test_")]

# Test functions skipped whole, and why.
SKIP_FUNCS = {
    ("tests/test_configs.py", "*"): "tests parse() extraction configs (priorities, first_match, "
        "normalization switches) on single strings; no gold/pred verdict",
    ("tests/test_string_extraction.py", "*"): "tests StringExtractionConfig output lists for "
        "one string; no gold/pred verdict",
    ("tests/test_timeout.py", "*"): "mocked timeouts (latex2sympy/sympy patched to sleep)",
    ("tests/test_raise_on_error.py", "*"): "error propagation with a mocked comparator",
}
# Options whose value changes Math-Verify's verdict for the same pair. We keep the case under
# the setting that asks for mathematical equivalence and Math-Verify's default strictness.
OPTION_KEEP = {"allow_set_relation_comp": True, "strict": True}

const_env = {"math": math, "__builtins__": {}}


def lit(node):
    """Evaluate a literal (strings, numbers, tuples, lists, f-strings over `math`)."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return eval(compile(ast.Expression(node), "<case>", "eval"), const_env)


def kwargs_of(call):
    out = {}
    for kw in call.keywords:
        try:
            out[kw.arg] = lit(kw.value)
        except Exception:
            out[kw.arg] = ast.unparse(kw.value)
    return out


def helper_call(fn):
    """The call that does the comparison in a parametrized test body, and its fixed kwargs."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name == "compare_strings":
                return "compare_strings", kwargs_of(node)
            if name == "verify":
                return "verify(parse(gold), parse(pred))", {}
    return None, {}


cases, taken, skipped = [], [], []
for path in FILES:
    src = git("show", f"HEAD:{path}")
    tree = ast.parse(src)
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
        if fn.name == "compare_strings":
            continue
        if (path, "*") in SKIP_FUNCS:
            skipped.append({"file": path, "function": fn.name, "why": SKIP_FUNCS[(path, "*")]})
            continue
        params = [d for d in fn.decorator_list if isinstance(d, ast.Call)
                  and ast.unparse(d.func).endswith("parametrize")]
        if params:
            dec = params[0]
            names = [s.strip() for s in lit(dec.args[0]).split(",")]
            helper, fixed = helper_call(fn)
            # Parameters passed on to the helper (precision, strict, ...) are per case.
            passed = {}
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "compare_strings":
                    for kw in node.keywords:
                        if isinstance(kw.value, ast.Name) and kw.value.id in names:
                            passed[kw.arg] = kw.value.id
            fixed = {k: v for k, v in fixed.items() if k not in passed}
            n_taken = n_opt = 0
            for elt in dec.args[1].elts:
                row = dict(zip(names, lit(elt)))
                exp_key = "expected" if "expected" in row else "result"
                opts = dict(fixed)
                opts.update({k: row[v] for k, v in passed.items()})
                drop = [k for k, keep in OPTION_KEEP.items() if k in opts and opts[k] != keep]
                rec = {"gold": row["gold"], "pred": row["pred"], "expected": bool(row[exp_key]),
                       "file": path, "line": elt.lineno, "function": fn.name,
                       "helper": helper, "options": opts}
                if drop:
                    n_opt += 1
                    skipped.append({"file": path, "function": fn.name, "line": elt.lineno,
                                    "why": f"option-dependent duplicate: {drop[0]}="
                                           f"{opts[drop[0]]} (kept the {drop[0]}="
                                           f"{OPTION_KEEP[drop[0]]} row)",
                                    "gold": row["gold"], "pred": row["pred"],
                                    "expected": bool(row[exp_key])})
                    continue
                cases.append(rec)
                n_taken += 1
            taken.append({"file": path, "function": fn.name, "cases": n_taken,
                          "helper": helper, "fixed_options": fixed,
                          "per_case_options": sorted(passed), "option_rows_skipped": n_opt})
            continue
        # Unparametrized tests: take `compare_strings(<literals>) == <0|1>` asserts only.
        found = 0
        for node in ast.walk(fn):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
                    and ast.unparse(node.left.func) == "compare_strings"
                    and isinstance(node.ops[0], ast.Eq)):
                call = node.left
                cases.append({"gold": lit(call.args[0]), "pred": lit(call.args[1]),
                              "expected": bool(lit(node.comparators[0])), "file": path,
                              "line": node.lineno, "function": fn.name,
                              "helper": "compare_strings", "options": kwargs_of(call)})
                found += 1
        if found:
            taken.append({"file": path, "function": fn.name, "cases": found,
                          "helper": "compare_strings", "note": "literal compare_strings asserts "
                          "only; sympy_expr_eq asserts on sympy objects skipped"})
        skipped.append({"file": path, "function": fn.name,
                        "why": ("its sympy_expr_eq asserts compare sympy objects, not strings"
                                if found else "no gold/pred string comparison")})

seen = {}
for i, c in enumerate(cases, 1):
    c["id"] = f"mv-{i:03d}"
    key = (c["gold"], c["pred"], c["expected"])
    c["duplicate_of"] = seen.setdefault(key, c["id"]) if key in seen else None
    seen.setdefault(key, c["id"])

with open(f"{OUT}/cases.jsonl", "w") as f:
    for c in cases:
        f.write(json.dumps({k: c[k] for k in ("id", "gold", "pred", "expected", "file", "line",
                                              "function", "helper", "options", "duplicate_of")},
                           ensure_ascii=False) + "\n")
with open(f"{OUT}/extraction.json", "w") as f:
    json.dump({"repo": "huggingface/Math-Verify", "commit": COMMIT, "cases": len(cases),
               "unique": len(seen), "expected_true": sum(c["expected"] for c in cases),
               "taken": taken, "skipped": skipped}, f, indent=1, ensure_ascii=False)
print(f"commit {COMMIT}: {len(cases)} cases ({len(seen)} unique), "
      f"{sum(c['expected'] for c in cases)} expected true")
for t in taken:
    print(f"  take {t['file']}::{t['function']}: {t['cases']}")
for s in skipped:
    print(f"  skip {s['file']}::{s['function']}" + (f":{s['line']}" if 'line' in s else "")
          + f": {s['why']}")
