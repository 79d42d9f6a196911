#!/usr/bin/env python3
"""Writes the Q&A differential corpus: (reference, completion) pairs with the verdict a careful
grader gives each, over the answer classes `normalised-match` must handle and the Q&A example.

    python3 examples/qa/corpus/make_corpus.py          # rewrite pairs.jsonl next to this script
    python3 examples/qa/corpus/make_corpus.py --check  # exit 1 if pairs.jsonl differs

Each line: {"id", "class", "reference", "completion", "truth", "note"}, where truth is
  right      a careful grader accepts the completion's final answer,
  wrong      a careful grader rejects it (a different value, a wrong form of relation, junk),
  ambiguous  careful graders could differ (the note says why); never counted against either tool.

Every pair is made here, from answer templates and seeded random values: nothing is copied from
another project's tests. Standard library only; the same script always writes the same bytes.
`scripts/math-verify-diff.sh` scores the corpus with AORLTA and with Math-Verify and reports
every disagreement.
"""

from __future__ import annotations

import json
import random
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent
OUT = HERE / "pairs.jsonl"

PAIRS: list[dict] = []


def add(cls: str, reference: str, completion: str, truth: str, note: str = "") -> None:
    assert truth in ("right", "wrong", "ambiguous"), truth
    PAIRS.append(
        {
            "id": f"{cls}-{sum(1 for p in PAIRS if p['class'] == cls) + 1:04d}",
            "class": cls,
            "reference": reference,
            "completion": completion,
            "truth": truth,
            "note": note,
        }
    )


LEADS = [
    "Let me work it out.\n\n",
    "We compute step by step.\n\n",
    "First, set up the problem carefully.\n\n",
    "",
    "Solution.\n",
]


def boxed(ans: str, rng: random.Random) -> str:
    """A completion whose final answer is `ans`, in one of the usual wrappers."""
    lead = rng.choice(LEADS)
    style = rng.randrange(6)
    if style == 0:
        return f"{lead}Therefore the answer is $\\boxed{{{ans}}}$."
    if style == 1:
        return f"{lead}So we get \\[\\boxed{{{ans}}}\\]"
    if style == 2:
        return f"{lead}**Final answer:** $\\boxed{{{ans}}}$"
    if style == 3:
        return f"{lead}Hence $\\boxed{{{ans}}}$."
    if style == 4:
        return f"{lead}The final answer is $\\boxed{{{ans}}}$. I hope it is correct."
    return f"{lead}\\boxed{{{ans}}}"


def fmt_frac(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return f"{sign}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def group(n: int, sep: str) -> str:
    s = str(abs(n))
    parts = []
    while len(s) > 3:
        parts.insert(0, s[-3:])
        s = s[:-3]
    parts.insert(0, s)
    return ("-" if n < 0 else "") + sep.join(parts)


# --- classes ---------------------------------------------------------------------------------


def numbers(rng: random.Random) -> None:
    """Bare numbers: thousands with spaces or thin spaces, trailing .0, signs, percents, a
    completion that is only a number."""
    for _ in range(70):
        n = rng.randrange(1000, 10_000_000)
        sep = rng.choice([" ", "\u2009", ",", "\\,", "{,}", "\u202f"])
        add("numbers", str(n), boxed(group(n, sep), rng), "right")
        add("numbers", str(n), group(n, sep), "right", "a completion that is only a number")
        wrong = n + rng.choice([1, -1, 10, 1000, -1000])
        add("numbers", str(n), boxed(group(wrong, sep), rng), "wrong")
    for _ in range(40):
        n = rng.randrange(-500, 500)
        add("numbers", str(n), boxed(f"{n}.0", rng), "right", "a trailing .0")
        add("numbers", f"{n}.0", f"{n}", "right", "a completion that is only a number")
        add("numbers", str(n), boxed(f"{n + 1}.0", rng), "wrong")
        if n > 0:
            add("numbers", str(n), boxed(f"+{n}", rng), "right", "an explicit plus sign")
            add("numbers", str(n), boxed(f"-{n}", rng), "wrong", "the sign matters")
            add("numbers", str(-n), f"\u2212{n}", "right", "a unicode minus, only the number")
    for _ in range(40):
        p = rng.randrange(1, 100)
        add("numbers", f"{p}\\%", boxed(f"{p}%", rng), "right", "a percent without LaTeX")
        add("numbers", f"{p}%", f"{p}%", "right", "a completion that is only a percentage")
        add("numbers", f"{p}\\%", boxed(f"{p} percent", rng), "right")
        add("numbers", f"{p}\\%", boxed(f"{p + 1}\\%", rng), "wrong")
    for _ in range(30):
        a, b = rng.randrange(1, 1000), rng.randrange(1, 100)
        d = f"{a}.{b:02d}"
        add("numbers", d, boxed(d + "0", rng), "right")
        add("numbers", d, boxed(f"{a}.{b + 1:02d}", rng), "wrong")


def fractions(rng: random.Random) -> None:
    """Fractions, decimals and mixed numbers for the same value."""
    for _ in range(50):
        q = Fraction(rng.randrange(-40, 40), rng.choice([2, 4, 5, 8, 10, 16, 20, 25]))
        if q.denominator == 1:
            continue
        ref = fmt_frac(q)
        dec = f"{float(q):.10g}"
        add("fractions", ref, boxed(dec, rng), "right", "an exact decimal")
        add("fractions", ref, boxed(f"{q.numerator}/{q.denominator}", rng), "right")
        add("fractions", ref, boxed(ref.replace("\\frac", "\\dfrac"), rng), "right")
        add("fractions", ref, boxed(fmt_frac(q + Fraction(1, q.denominator)), rng), "wrong")
        add("fractions", ref, boxed(fmt_frac(-q), rng), "wrong")
    for _ in range(25):
        q = Fraction(rng.randrange(1, 30), rng.choice([3, 7, 9, 11]))
        if q.denominator == 1:
            continue
        add("fractions", fmt_frac(q), boxed(f"{float(q):.4f}", rng), "ambiguous",
            "a rounded decimal for a fraction that has no exact decimal: depends on the task")
        add("fractions", fmt_frac(q), boxed(f"\\frac{{{2 * q.numerator}}}{{{2 * q.denominator}}}", rng), "right",
            "an unreduced fraction of the same value")
        add("fractions", fmt_frac(q), boxed(f"{float(q):.1f}", rng), "wrong", "rounded far too coarsely")


def worked_references(rng: random.Random) -> None:
    """References that are worked solutions ending in a boxed answer."""
    for _ in range(60):
        a, b = rng.randrange(2, 30), rng.randrange(2, 30)
        total = a * b
        ref = (f"We multiply the two quantities: ${a} \\times {b} = {total}$. "
               f"Checking, ${total} / {b} = {a}$. Therefore the answer is $\\boxed{{{total}}}$.")
        add("worked-reference", ref, boxed(str(total), rng), "right")
        add("worked-reference", ref, f"{total}", "right")
        add("worked-reference", ref, boxed(str(total + a), rng), "wrong")
        add("worked-reference", ref, boxed(str(a), rng), "wrong",
            "a number of the solution text that is not its answer")
    for _ in range(25):
        q = Fraction(rng.randrange(1, 20), rng.randrange(2, 20))
        if q.denominator == 1:
            continue
        ref = (f"Let $p$ be the probability. Counting the favourable cases gives "
               f"$p = {fmt_frac(q)}$, so the probability is $\\boxed{{{fmt_frac(q)}}}$.")
        add("worked-reference", ref, boxed(f"{q.numerator}/{q.denominator}", rng), "right")
        add("worked-reference", ref, boxed(fmt_frac(q * 2), rng), "wrong")


def multi_box(rng: random.Random) -> None:
    """Several boxed answers meaning a set of answers."""
    joins = [" \\quad \\text{and} \\quad ", " and ", ", ", " \\text{ or } ", "$ and $", " \\qquad "]
    for _ in range(45):
        pts = sorted({(rng.randrange(-9, 10), rng.randrange(-9, 10)) for _ in range(2)})
        if len(pts) < 2:
            continue
        j = rng.choice(joins)
        ref = j.join(f"\\boxed{{({x}, {y})}}" for x, y in pts)
        rev = ", ".join(f"({x},{y})" for x, y in reversed(pts))
        add("multi-box", ref, boxed(rev, rng), "right", "the same set of pairs in another order")
        add("multi-box", f"({pts[0][0]}, {pts[0][1]}), ({pts[1][0]}, {pts[1][1]})",
            "Both work: " + ref + ".", "right", "two boxed answers in the completion")
        add("multi-box", ref, boxed(f"({pts[0][0]}, {pts[0][1]})", rng), "wrong", "one of two answers")
        x, y = pts[1]
        add("multi-box", ref, boxed(f"({pts[0][0]}, {pts[0][1]}), ({y}, {x})", rng),
            "wrong" if x != y else "right", "a pair with its order swapped")
    for _ in range(30):
        r = sorted(rng.sample(range(-12, 13), 2))
        ref = f"\\boxed{{{r[0]}}} \\text{{ and }} \\boxed{{{r[1]}}}"
        add("multi-box", ref, boxed(f"{r[1]}, {r[0]}", rng), "right")
        add("multi-box", ref, boxed(f"{r[0]}, {r[1] + 1}", rng), "wrong")


def solution_lists(rng: random.Random) -> None:
    """Lists of solutions: `x = a, x = b`, `or`, named pairs against tuples."""
    for _ in range(50):
        a, b = rng.sample(range(-15, 16), 2)
        qa = Fraction(rng.randrange(1, 9), rng.randrange(2, 9))
        ref = f"{fmt_frac(qa)}, {b}"
        add("solution-lists", ref, boxed(f"x = {fmt_frac(qa)}, x = {b}", rng), "right")
        add("solution-lists", ref, boxed(f"x = {b} \\text{{ or }} x = {fmt_frac(qa)}", rng), "right")
        add("solution-lists", ref, f"The solutions are $x = {fmt_frac(qa)}$ and $x = {b}$, so "
            f"$\\boxed{{x = {fmt_frac(qa)}, \\ x = {b}}}$.", "right")
        add("solution-lists", ref, boxed(f"x = {fmt_frac(qa)}", rng), "wrong", "a solution missing")
        extra = a if Fraction(a) not in (qa, Fraction(b)) else b + 100
        add("solution-lists", ref, boxed(f"x = {fmt_frac(qa)}, x = {b}, x = {extra}", rng), "wrong",
            "an extra solution")
    for _ in range(35):
        p1, p2, q = rng.choice([(5, 7, 2), (3, 5, 2), (2, 3, 5), (7, 11, 3), (3, 7, 2)])
        ref = f"({p1}, {q}), ({p2}, {q})"
        add("solution-lists", ref, boxed(f"p={p1},q={q};p={p2},q={q}", rng), "right",
            "named solutions against tuples in the order of the names")
        add("solution-lists", ref, boxed(f"(p, q) = ({p2}, {q}), ({p1}, {q})", rng), "right")
        add("solution-lists", ref, boxed(f"p={q},q={p1};p={q},q={p2}", rng), "wrong",
            "the names swapped")


def relations(rng: random.Random) -> None:
    """Relations and ranges against intervals: direction and strictness matter."""
    ops = {("<", "<"): ("(", ")"), ("\\le", "\\le"): ("[", "]"), ("<", "\\le"): ("(", "]"),
           ("\\le", "<"): ("[", ")")}
    for _ in range(45):
        lo = rng.randrange(-900, 0)
        hi = rng.randrange(1, 50)
        (o1, o2), (b1, b2) = rng.choice(list(ops.items()))
        v = rng.choice("axtk")
        rel = f"{lo} {o1} {v} {o2} {hi}"
        iv = f"{b1}{lo}, {hi}{b2}"
        add("relations", rel, boxed(iv, rng), "right", "a chain of inequalities is an interval")
        add("relations", iv, boxed(rel, rng), "right")
        add("relations", iv, boxed(f"{v} \\in {iv}", rng), "right")
        flip = {"(": "[", "[": "("}[b1]
        add("relations", rel, boxed(f"{flip}{lo}, {hi}{b2}", rng), "wrong", "strictness differs")
        add("relations", rel, boxed(f"{b1}{lo}, {hi + 1}{b2}", rng), "wrong")
    for _ in range(30):
        c = rng.randrange(-20, 20)
        v = rng.choice("xy")
        add("relations", f"{v} > {c}", boxed(f"({c}, \\infty)", rng), "right")
        add("relations", f"{v} \\ge {c}", boxed(f"[{c}, \\infty)", rng), "right")
        add("relations", f"{v} > {c}", boxed(f"{v} < {c}", rng), "wrong", "the direction matters")
        add("relations", f"{v} > {c}", boxed(f"{v} \\geq {c}", rng), "wrong", "strictness differs")
        add("relations", f"{v} > {c}", boxed(f"{c} < {v}", rng), "right", "read right to left")
    for _ in range(15):
        c = rng.randrange(-20, 20)
        add("relations", f"({c}, \\infty)", boxed(f"\\{{x \\mid x > {c}\\}}", rng), "right", "set-builder notation")
        add("relations", f"[{c}, \\infty)", boxed(f"\\{{x \\mid x > {c}\\}}", rng), "wrong", "strictness differs")
        add("relations", "(-\\infty, \\infty)", boxed("\\mathbb{R}", rng), "right", "all real numbers")
    for _ in range(20):
        a = rng.randrange(1, 5)
        b = a + rng.randrange(1, 5)
        ref = f"{a} \\le |z| \\le {b}"
        add("relations", ref, boxed(f"[-{b}, -{a}] \\cup [{a}, {b}]", rng), "right",
            "a range of an absolute value is a union of two intervals")
        add("relations", ref, boxed(f"[{a}, {b}]", rng), "wrong", "half of the range")
        add("relations", f"[-{b}, -{a}] \\cup [{a}, {b}]", boxed(f"{a} < |z| \\le {b}", rng), "wrong",
            "strictness differs")


def labels(rng: random.Random) -> None:
    """Equations whose left side only names the quantity, and ones whose left side constrains."""
    for _ in range(30):
        k = rng.randrange(2, 12)
        seg = rng.choice(["\\frac{NO}{BO}", "\\frac{AB}{CD}", "\\frac{PQ}{QR}"])
        short = f"\\sqrt{k}" if k < 10 else f"\\sqrt{{{k}}}"  # `\sqrt6`: one digit needs no braces
        add("labels", f"\\frac{{1}}{{\\sqrt{{{k}}}}}", boxed(f"{seg}=\\frac{{1}}{{{short}}}", rng), "right",
            "a ratio of named segments names the quantity")
        add("labels", f"{seg} = \\frac{{1}}{{\\sqrt{{{k}}}}}", boxed(f"\\frac{{\\sqrt{{{k}}}}}{{{k}}}", rng), "right")
        add("labels", f"\\frac{{1}}{{\\sqrt{{{k}}}}}", boxed(f"{seg}=\\frac{{1}}{{\\sqrt{{{k + 1}}}}}", rng), "wrong")
    for _ in range(30):
        a, b = rng.randrange(1, 40), rng.randrange(1, 40)
        add("labels", f"{a}:{b}", boxed(f"V_1:V_2={a}:{b}", rng), "right", "a named ratio")
        add("labels", f"V_1 : V_2 = {a} : {b}", boxed(f"{a}:{b}", rng), "right")
        add("labels", f"{a}:{b}", boxed(f"{b}:{a}" if a != b else f"{a}:{b + 1}", rng), "wrong",
            "a ratio read backwards")
        add("labels", f"S = {a}:{b}", boxed(f"{a}:{b}", rng), "right")
    for _ in range(30):
        m, c = rng.randrange(-9, 10), rng.randrange(-9, 10)
        if m == 0:
            continue
        line = f"{m}x {'+' if c >= 0 else '-'} {abs(c)}"
        add("labels", f"y = {line}", boxed(line, rng), "right", "`y =` only names the line")
        add("labels", line, boxed(f"f(x) = {line}", rng), "right")
        r = rng.randrange(2, 9)
        add("labels", f"x^2 + y^2 = {r * r}", boxed(f"{r * r}", rng), "wrong",
            "the left side is the answer's content, not a name")
        add("labels", f"x^2 + y^2 = {r * r}", boxed(f"y^2 + x^2 = {r}^2", rng), "right")


def matrices(rng: random.Random) -> None:
    envs = ["pmatrix", "bmatrix"]
    for _ in range(40):
        m = [[rng.randrange(-5, 6) for _ in range(2)] for _ in range(2)]

        def mat(e: str, mm=m) -> str:
            rows = " \\\\ ".join(" & ".join(str(v) for v in r) for r in mm)
            return f"\\begin{{{e}}} {rows} \\end{{{e}}}"

        add("matrices", mat("pmatrix"), boxed(mat(rng.choice(envs)), rng), "right")
        t = [[m[0][0], m[1][0]], [m[0][1], m[1][1]]]
        add("matrices", mat("pmatrix"), boxed(mat("bmatrix", t), rng), "wrong" if t != m else "right",
            "the transpose")
        m2 = [r[:] for r in m]
        m2[1][1] += 1
        add("matrices", mat("bmatrix"), boxed(mat("pmatrix", m2), rng), "wrong")
    for _ in range(30):
        v = [rng.randrange(-9, 10) for _ in range(3)]
        col = "\\begin{pmatrix} " + " \\\\ ".join(str(x) for x in v) + " \\end{pmatrix}"
        add("matrices", col, boxed(col.replace("pmatrix", "bmatrix"), rng), "right")
        add("matrices", col, boxed(f"({v[0]}, {v[1]}, {v[2]})", rng), "ambiguous",
            "a column vector written as a tuple: many graders accept it, some want the vector form")
        w = v[:]
        w[0] += 1
        add("matrices", col, boxed("\\begin{pmatrix} " + " \\\\ ".join(str(x) for x in w) + " \\end{pmatrix}", rng),
            "wrong")


def bases(rng: random.Random) -> None:
    def to_base(n: int, b: int) -> str:
        s = ""
        while n:
            s = str(n % b) + s
            n //= b
        return s or "0"

    for _ in range(40):
        b = rng.choice([2, 3, 5, 6, 7, 8])
        n = rng.randrange(b * b, 400)
        s = to_base(n, b)
        add("bases", f"{s}_{b}", boxed(f"{s}_{{{b}}}", rng), "right")
        add("bases", f"{s}_{{{b}}}", boxed(s, rng), "right", "the base written in the question only")
        add("bases", f"{s}_{b}", boxed(f"{to_base(n + 1, b)}_{b}", rng), "wrong")
        add("bases", f"{s}_{b}", boxed(str(n), rng), "wrong",
            "the value in base ten, where the question asks for base " + str(b))


def units(rng: random.Random) -> None:
    """Unit words, approximations, degrees, `\\text{ and }`, `\\quad` and align environments."""
    for _ in range(30):
        n = rng.randrange(1, 100)
        add("units", f"{n}\\%", boxed(f"{n} percentage", rng), "right")
        add("units", f"{n}", boxed(f"{n} \\text{{ cm}}", rng), "right", "a unit the reference leaves out")
        add("units", f"{n} cm", boxed(f"{n}", rng), "right")
        add("units", f"{n} cm", boxed(f"{n + 2} cm", rng), "wrong")
        add("units", f"{n}^\\circ", boxed(f"{n}", rng), "right")
        add("units", f"{n}^\\circ", boxed(f"{n}°", rng), "right")
        add("units", f"{n}^\\circ", boxed(f"{n + 5}^{{\\circ}}", rng), "wrong")
    for _ in range(25):
        k = rng.randrange(2, 50)
        if int(k ** 0.5) ** 2 == k:
            continue
        approx = f"{k ** 0.5:.3f}"
        add("units", f"\\sqrt{{{k}}}", boxed(f"x \\approx {approx}", rng), "ambiguous",
            "a rounded value for an exact answer: depends on whether the task asks for a decimal")
        add("units", f"\\sqrt{{{k}}}", boxed(f"\\sqrt{{{k}}} \\approx {approx}", rng), "right",
            "the exact value, then its approximation")
        add("units", approx, boxed(f"\\approx {approx}", rng), "right")
        add("units", f"\\sqrt{{{k}}}", boxed(f"\\sqrt{{{k + 1}}} \\approx {(k + 1) ** 0.5:.3f}", rng), "wrong")
    for _ in range(25):
        a, b = rng.sample(range(1, 30), 2)
        add("units", f"{a}, {b}", boxed(f"{a} \\text{{ and }} {b}", rng), "right")
        add("units", f"{a}, {b}", boxed(f"{b} \\quad {a}", rng), "right", "`\\quad` between answers")
        add("units", f"{a}", f"We find \\begin{{align*}} x &= {a} \\end{{align*}}", "right",
            "an align* environment around the final answer")
        add("units", f"{a}, {b}", f"\\begin{{align*}} x &= {a} \\\\ x &= {b} \\end{{align*}}", "right")
        add("units", f"{a}", boxed(f"{a} \\text{{ and }} {b}", rng), "wrong", "an extra answer")


X_FORMS = [
    # (reference, equivalent rewrites, wrong rewrites)
    ("x^2 - 1", ["(x-1)(x+1)", "(x+1)(x-1)", "-1 + x^2"], ["(x-1)^2", "x^2+1", "(x-1)(x+2)"]),
    ("(x+2)^2", ["x^2+4x+4", "(2+x)(x+2)"], ["x^2+4", "x^2+2x+4"]),
    ("\\frac{x^2-4}{x-2}", ["x+2"], ["x-2"]),
    ("2\\sin x \\cos x", ["\\sin(2x)", "\\sin 2x"], ["\\sin x", "2\\sin(2x)"]),
    ("\\sin^2 x + \\cos^2 x", ["1"], ["2", "\\sin x"]),
    ("\\ln(x^2)", ["2\\ln x"], ["\\ln x", "\\ln(2x)"]),
    ("e^{2x}", ["(e^x)^2", "e^x e^x"], ["2e^x", "e^{x^2}"]),
    ("\\sqrt{4x^2}", ["2|x|"], ["4x"]),
    ("\\frac{1}{x} + \\frac{1}{y}", ["\\frac{x+y}{xy}"], ["\\frac{1}{x+y}", "\\frac{2}{xy}"]),
    ("\\frac{n(n+1)}{2}", ["\\frac{n^2+n}{2}", "\\binom{n+1}{2}"], ["\\frac{n(n-1)}{2}", "n^2"]),
    ("3a^2b", ["3ba^2", "3 \\cdot a \\cdot a \\cdot b"], ["3ab^2", "3a^2"]),
    ("\\pi r^2 h", ["h\\pi r^2"], ["2\\pi r h", "\\pi r h"]),
    ("\\log_2 8", ["3"], ["4"]),
    ("\\cos(\\pi/3)", ["\\frac{1}{2}", "0.5"], ["\\frac{\\sqrt3}{2}"]),
    ("\\frac{\\sqrt{2}}{2}", ["\\frac{1}{\\sqrt{2}}", "\\sin(\\pi/4)"], ["\\sqrt2", "\\frac12"]),
    ("2\\pi", ["\\pi \\cdot 2", "\\frac{4\\pi}{2}"], ["\\pi", "4\\pi"]),
    ("e^2", ["e \\cdot e"], ["2e", "e^3"]),
    ("\\frac{x}{x+1}", ["1 - \\frac{1}{x+1}"], ["\\frac{x+1}{x}", "\\frac{1}{x+1}"]),
    ("(a+b)^3", ["a^3+3a^2b+3ab^2+b^3"], ["a^3+b^3", "a^3+3ab+b^3"]),
    ("x^{3/2}", ["x\\sqrt{x}"], ["x^{2/3}", "\\sqrt{x}"]),
]


def symbolic(rng: random.Random) -> None:
    """Expressions with variables, compared by value: expanded, factored, reordered, identities."""
    for ref, rights, wrongs in X_FORMS:
        for r in rights:
            add("symbolic", ref, boxed(r, rng), "right")
            add("symbolic", r, boxed(ref, rng), "right")
        for w in wrongs:
            add("symbolic", ref, boxed(w, rng), "wrong")
    for _ in range(60):
        a, b, c = rng.randrange(1, 9), rng.randrange(-9, 10), rng.randrange(-9, 10)
        ref = f"{a}x^2 {'+' if b >= 0 else '-'} {abs(b)}x {'+' if c >= 0 else '-'} {abs(c)}"
        expand = f"{c} + {b}x + {a}x^2".replace("+ -", "- ")
        add("symbolic", ref, boxed(expand, rng), "right", "the same polynomial, terms reordered")
        add("symbolic", ref, boxed(f"{a}x^2 + {b + 1}x + {c}".replace("+ -", "- "), rng), "wrong")
        r1, r2 = rng.sample([r for r in range(-6, 7) if r != 0], 2)
        fact = f"{a}(x {'-' if r1 >= 0 else '+'} {abs(r1)})(x {'-' if r2 >= 0 else '+'} {abs(r2)})"
        bb, cc = -a * (r1 + r2), a * r1 * r2
        poly = f"{a}x^2 {'+' if bb >= 0 else '-'} {abs(bb)}x {'+' if cc >= 0 else '-'} {abs(cc)}"
        add("symbolic", poly, boxed(fact, rng), "right", "factored")
        add("symbolic", poly, boxed(fact.replace("x -", "x +", 1) if "x -" in fact else fact.replace("x +", "x -", 1), rng),
            "wrong", "a root's sign flipped")
    for _ in range(20):
        num, rep = rng.randrange(0, 10), rng.randrange(1, 99)
        q = Fraction(num, 10) + Fraction(rep, 990)
        add("symbolic", fmt_frac(q), boxed(f"0.{num}\\overline{{{rep:02d}}}", rng), "right", "a repeating decimal")
        add("symbolic", fmt_frac(q), boxed(f"0.{num}{rep:02d}", rng), "ambiguous",
            "the repeating part written once: a rounding that depends on whether the task asks for a decimal")
        add("symbolic", fmt_frac(q), boxed(f"0.{num}\\overline{{{(rep + 1) % 99 + 1:02d}}}", rng), "wrong",
            "other repeating digits")
        b2 = rng.randrange(2, 30)
        if int(b2 ** 0.5) ** 2 == b2:
            continue
        add("symbolic", f"\\frac{{-1 \\pm \\sqrt{{{b2}}}}}{{2}}",
            boxed(f"\\frac{{-1 + \\sqrt{{{b2}}}}}{{2}}, \\frac{{-1 - \\sqrt{{{b2}}}}}{{2}}", rng), "right",
            "`\\pm` inside a fraction")
        add("symbolic", f"\\frac{{-1 \\pm \\sqrt{{{b2}}}}}{{2}}", boxed(f"\\frac{{-1 + \\sqrt{{{b2}}}}}{{2}}", rng),
            "wrong", "one root of two")
    for _ in range(30):
        a, b = rng.randrange(1, 9), rng.randrange(2, 30)
        if int(b ** 0.5) ** 2 == b:
            continue
        add("symbolic", f"{a} \\pm \\sqrt{{{b}}}", boxed(f"{a} + \\sqrt{{{b}}}, {a} - \\sqrt{{{b}}}", rng), "right",
            "`\\pm` is two answers")
        add("symbolic", f"{a} \\pm \\sqrt{{{b}}}", boxed(f"x = {a} - \\sqrt{{{b}}}, x = {a} + \\sqrt{{{b}}}", rng),
            "right")
        add("symbolic", f"{a} \\pm \\sqrt{{{b}}}", boxed(f"{a} + \\sqrt{{{b}}}", rng), "wrong", "one of two")
        add("symbolic", f"\\sqrt{{{b * 4}}}", boxed(f"2\\sqrt{{{b}}}", rng), "right")
        add("symbolic", f"\\sqrt{{{b * 4}}}", boxed(f"4\\sqrt{{{b}}}", rng), "wrong")


def near_misses(rng: random.Random) -> None:
    """Answers close to right that a careful grader still rejects (and their right twins): a
    lenient rule must never let these through."""
    for _ in range(25):
        n = rng.randrange(2, 60)
        add("near-misses", f"{n} cm", boxed(f"{n} m", rng), "wrong", "a different unit")
        add("near-misses", f"{n} cm", boxed(f"{n} \\text{{ centimeters}}", rng), "right")
        add("near-misses", f"{n}\\%", boxed(f"{n / 1000:g}", rng), "wrong", "a percentage read as per mille")
        add("near-misses", f"{n}\\%", boxed(f"{n / 100:g}", rng), "right", "a percentage as a fraction")
        add("near-misses", f"\\{{{n}, {n + 1}\\}}", boxed(f"({n}, {n + 1})", rng), "ambiguous",
            "two solutions written as a pair: a careful grader wants the set, many accept the pair")
        add("near-misses", f"({n}, {n + 1})", boxed(f"[{n}, {n + 1}]", rng), "wrong",
            "an open interval is not a closed one")
        add("near-misses", f"x^{{{n % 5 + 2}}}", boxed(f"x^{{{n % 5 + 3}}}", rng), "wrong")
        add("near-misses", f"{n}x + 1", boxed(f"{n}x + 1.000001", rng), "wrong", "a tiny constant off")
        add("near-misses", f"\\frac{{{n}}}{{x}}", boxed(f"\\frac{{x}}{{{n}}}", rng), "wrong")
        add("near-misses", f"{n}", boxed(f"-{n}", rng), "wrong")
        add("near-misses", f"(1, {n})", boxed(f"y = {n}, x = 1", rng), "right", "named coordinates")
        add("near-misses", f"(1, {n})", boxed(f"x = {n}, y = 1", rng), "wrong", "coordinates swapped")
        c = rng.choice("ABCD")
        other = "ABCD"[("ABCD".index(c) + 1) % 4]
        add("near-misses", c, boxed(f"\\text{{({other})}}", rng), "wrong")
        add("near-misses", c, boxed(f"\\textbf{{({c})}}", rng), "right")
    for _ in range(15):
        d = rng.choice([2, 3, 5, 7])
        add("near-misses", "\\pi", boxed("3.1", rng), "wrong", "two significant digits do not name pi")
        add("near-misses", f"\\sqrt{{{d}}}", boxed(f"{d ** 0.5:.1f}", rng), "wrong", "rounded too coarsely")
        add("near-misses", f"2^{{{d}}}", boxed(str(2 ** d + 1), rng), "wrong")
        add("near-misses", f"2^{{{d}}}", boxed(str(2 ** d), rng), "right")


def decimal_commas(rng: random.Random) -> None:
    """Decimals written with a decimal comma (`1000,99`, `0,111`) against the same decimal with a
    point, and the near misses: a comma and a space between two numbers, other digits."""
    for _ in range(30):
        a, b = rng.randrange(1, 10_000), rng.randrange(10, 100)
        add("decimal-commas", f"{a}.{b}", boxed(f"{a},{b}", rng), "right", "a decimal comma")
        add("decimal-commas", f"{a},{b}", f"{a}.{b}", "right", "a decimal comma in the reference")
        add("decimal-commas", f"{a}.{b}", boxed(f"{a}, {b}", rng), "wrong",
            "a comma and a space separate two numbers")
        add("decimal-commas", f"{a}.{b}", boxed(f"{a},{b + 1}", rng), "wrong")
    for _ in range(15):
        d = rng.randrange(100, 1000)
        add("decimal-commas", f"0.{d}", boxed(f"0,{d}", rng), "right", "no thousands group after a 0")
        add("decimal-commas", f"{d}", boxed(f"0,{d}", rng), "wrong", "0,ddd is not ddd")


def closing_sentences(rng: random.Random) -> None:
    """Completions whose answer is only in a closing sentence after the math ("Therefore, there
    are 12 ways."), a statement in prose, and the near misses: reasoning after the sentence, a
    negation, two numbers."""
    for _ in range(30):
        n = rng.randrange(2, 500)
        work = f"Each choice gives $k = {n % 7 + 2}$ options, and we count them one by one."
        add("closing-sentences", str(n), f"{work} Therefore, there are {n} ways to do it.", "right")
        add("closing-sentences", str(n), f"{work} Therefore, there are {n} ways. I hope it is correct.",
            "right", "a sign-off after the closing sentence")
        add("closing-sentences", str(n), f"{work} Thus the total is {n}.", "right")
        add("closing-sentences", str(n), f"{work} Therefore, there are {n + 1} ways to do it.", "wrong")
        add("closing-sentences", str(n), f"{work} So the total is not {n}.", "wrong", "a negation")
        add("closing-sentences", str(n), f"{work} Thus it lies between {n} and {n + 5}.", "wrong",
            "two numbers, no answer")
        add("closing-sentences", str(n),
            f"{work} So the total is {n}. " + "Wait, let me check each case again carefully. " * 3,
            "wrong", "reasoning goes on after it: no final answer")
        add("closing-sentences", str(n), f"Final Answer: She needs {n} more apples.", "right",
            "a statement in prose with one number")
    for _ in range(15):
        p = rng.randrange(2, 100)
        add("closing-sentences", f"{p}\%", f"Comparing $a$ and $b$ term by term. Hence the price rises by {p}%.",
            "right")
        add("closing-sentences", f"{p}\%", f"Comparing $a$ and $b$ term by term. Hence the price rises by {p + 1}%.",
            "wrong")


def equations_and_ranges(rng: random.Random) -> None:
    """An assignment against an equation in another form, a function's range, several boxed
    answers joined by their units or by part labels."""
    for _ in range(30):
        a, b = rng.randrange(1, 9), rng.randrange(1, 9)
        c = rng.randrange(-20, 21)
        m, k = Fraction(-a, b), Fraction(c, b)
        line = f"{fmt_frac(m)}x {'+' if k >= 0 else '-'} {fmt_frac(abs(k))}"
        add("equations-ranges", f"{a}x + {b}y = {c}", boxed(f"y = {line}", rng), "right",
            "the same line solved for y")
        add("equations-ranges", f"{a}x + {b}y = {c}", boxed(f"y = {fmt_frac(-m)}x + {fmt_frac(k)}", rng),
            "wrong" if m != 0 else "right", "the slope's sign flipped")
        hi = rng.randrange(1, 30)
        add("equations-ranges", f"0 < f(x) < {hi}", boxed(f"(0, {hi})", rng), "right", "the range of f")
        add("equations-ranges", f"0 < f(x) < {hi}", boxed(f"[0, {hi})", rng), "wrong", "strictness differs")
    for _ in range(30):
        u, v = rng.sample(range(1, 40), 2)
        add("equations-ranges", f"{u}, {v}", f"So \\boxed{{{u}}} apples and \\boxed{{{v}}} pears.", "right",
            "boxes joined by their units and `and`")
        add("equations-ranges", f"{u}", f"So \\boxed{{{u}}} apples and \\boxed{{{v}}} pears.", "wrong",
            "two answers for one")
        add("equations-ranges", f"({u}, {v}), ({v}, {u})",
            f"$$\\boxed{{({u}, {v})}} \\text{{ for part (a) and }} \\boxed{{({v}, {u})}}$$", "right",
            "boxes joined by a part label")


def matrix_arithmetic(rng: random.Random) -> None:
    """Sums, products and multiples of matrices written out, against the matrix they come to."""
    def mat(mm) -> str:
        rows = " \\\\ ".join(" & ".join(str(v) for v in r) for r in mm)
        return f"\\begin{{pmatrix}} {rows} \\end{{pmatrix}}"

    for _ in range(30):
        p = [[rng.randrange(-5, 6) for _ in range(2)] for _ in range(2)]
        q = [[rng.randrange(-5, 6) for _ in range(2)] for _ in range(2)]
        add2 = [[p[i][j] + q[i][j] for j in range(2)] for i in range(2)]
        pq = [[sum(p[i][k] * q[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        qp = [[sum(q[i][k] * p[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        add("matrix-arithmetic", mat(add2), boxed(f"{mat(p)} + {mat(q)}", rng), "right")
        add("matrix-arithmetic", mat(pq), boxed(f"{mat(p)} {mat(q)}", rng), "right")
        add("matrix-arithmetic", mat(pq), boxed(f"{mat(q)} \\cdot {mat(p)}", rng),
            "wrong" if pq != qp else "right", "the product in the other order")
        add("matrix-arithmetic", mat(add2), boxed(f"{mat(p)} - {mat(q)}", rng),
            "wrong" if any(q[i][j] for i in range(2) for j in range(2)) else "right")


def examples() -> None:
    """The Q&A example's pools, with the outcome its generator intended for each line."""
    tasks = {}
    for line in (EXAMPLE / "tasks.jsonl").read_text().splitlines():
        t = json.loads(line)
        tasks[t["id"]] = t["answer"]
    expect = {}
    for line in (EXAMPLE / "expected.jsonl").read_text().splitlines():
        e = json.loads(line)
        expect[e["id"]] = e["expect"]
    for pool in ("before", "after"):
        for line in (EXAMPLE / f"{pool}.jsonl").read_text().splitlines():
            c = json.loads(line)
            truth = "right" if expect[c["id"]] == "right" else "wrong"
            PAIRS.append(
                {
                    "id": f"example-{c['id']}",
                    "class": "examples",
                    "reference": tasks[c["task"]],
                    "completion": c["completion"],
                    "truth": truth,
                    "note": f"examples/qa/expected.jsonl: {expect[c['id']]}",
                }
            )


def build() -> str:
    PAIRS.clear()
    rng = random.Random(12_2026)
    for make in (numbers, fractions, worked_references, multi_box, solution_lists, relations,
                 labels, matrices, bases, units, symbolic, near_misses):
        make(rng)
    # Later classes draw from a generator of their own, so the pairs above stay as they were.
    rng = random.Random(12_2026_2)
    for make in (decimal_commas, closing_sentences, equations_and_ranges, matrix_arithmetic):
        make(rng)
    examples()
    ids = [p["id"] for p in PAIRS]
    assert len(ids) == len(set(ids))
    return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in PAIRS)


def main() -> int:
    text = build()
    if "--check" in sys.argv[1:]:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} differs from what make_corpus.py writes", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    by_class: dict[str, dict[str, int]] = {}
    for p in PAIRS:
        by_class.setdefault(p["class"], {}).setdefault(p["truth"], 0)
        by_class[p["class"]][p["truth"]] += 1
    for c, t in by_class.items():
        print(f"{c:18} {sum(t.values()):5}  " + ", ".join(f"{k} {v}" for k, v in sorted(t.items())))
    print(f"{'total':18} {len(PAIRS):5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
