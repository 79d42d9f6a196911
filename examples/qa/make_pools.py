#!/usr/bin/env python3
"""Writes the Q&A example: its tasks, two sample pools and the outcome each pool line should get.

    python3 examples/qa/make_pools.py          # rewrite the four files next to this script
    python3 examples/qa/make_pools.py --check  # exit 1 if any of them differs from what it would write

Output, next to this script:
  tasks.jsonl     {"id", "prompt", "answer"} per line
  before.jsonl    {"task", "completion", "id"} per line: a weak model's completions
  after.jsonl     the same tasks answered by a stronger model
  expected.jsonl  {"id", "expect"} for every line of both pools, where expect is one of
                  right | wrong | no-answer | answer-too-long | unreadable

Standard library only, fixed seeds: the same script always writes the same bytes. Before writing,
every completion is read back the way the `parse` leg reads it (last `\\boxed{}`, else the last
"the answer is"/"Answer:" statement, else the last LaTeX math span) and the answer found is
checked against the outcome intended for it, so a line cannot silently mean something else.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_ANSWER_LEN = 200  # profile.yaml: parse params max-answer-len
SOFT_LEN, HARD_LEN = 3000, 6000  # profile.yaml: length soft/hard
SAMPLES_PER_TASK = 5

KINDS = ("right", "wrong", "no-answer", "answer-too-long", "unreadable")

# How many lines of each kind a pool holds (each pool has SAMPLES_PER_TASK lines per task).
POOL_PLAN = {
    "before": {"seed": 1_970_875, "kinds": {"right": 120, "wrong": 110, "no-answer": 36,
                                           "answer-too-long": 17, "unreadable": 17}},
    "after": {"seed": 2_612_009, "kinds": {"right": 210, "wrong": 57, "no-answer": 17,
                                          "answer-too-long": 8, "unreadable": 8}},
}


@dataclass
class Task:
    """One task, with the forms a completion may give its answer in."""

    id: str
    prompt: str
    answer: str  # the reference, as written in tasks.jsonl
    alts: list[str]  # other forms that mean the same (must normalise equal to `answer`)
    wrongs: list[str]  # plausible wrong answers; wrongs[0] is where `slip` leads
    work: list[str]  # correct reasoning, sentence by sentence (no `$`, no "answer")
    slip: list[str]  # reasoning with a mistake, ending at wrongs[0]
    uni: str | None = None  # a right form written with unicode symbols
    rights: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.rights = [self.answer, *self.alts]
        if self.uni:
            self.rights.append(self.uni)


def T(n, prompt, answer, alts, wrongs, work, slip, uni=None):
    return Task(f"qa-{n:03d}", prompt, answer, alts, wrongs, work, slip, uni)


TASKS = [
    T(1, "What is 17 × 23?", "391", ["391.0", "+391"], ["381", "401", "371"],
      ["Split 23 into 20 + 3.", "Then 17 × 20 = 340 and 17 × 3 = 51.", "Adding the partial products: 340 + 51 = 391."],
      ["Split 23 into 20 + 3.", "Then 17 × 20 = 340 and 17 × 3 = 41.", "Adding: 340 + 41 = 381."]),
    T(2, "Compute 48 − 75.", "-27", ["-27.0"], ["27", "-23", "-37"],
      ["75 is larger than 48, so the result is negative.", "The difference 75 − 48 = 27.", "So 48 − 75 = −27."],
      ["The difference between 75 and 48 is 75 − 48 = 27.", "So the result is 27."], uni="−27"),
    T(3, "What is 2.5 × 1.3?", "3.25", ["3.250", "13/4", "\\frac{13}{4}"], ["3.15", "32.5", "2.25"],
      ["Write 1.3 as 1 + 0.3.", "Then 2.5 × 1 = 2.5 and 2.5 × 0.3 = 0.75.", "Adding gives 2.5 + 0.75 = 3.25."],
      ["Write 1.3 as 1 + 0.3.", "Then 2.5 × 1 = 2.5 and 2.5 × 0.3 = 0.65.", "Adding gives 3.15."]),
    T(4, "How many seconds are there in one week?", "604,800", ["604800", "6.048 \\times 10^{5}"],
      ["86,400", "604,000", "60,480"],
      ["A minute has 60 seconds and an hour has 60 minutes, so an hour has 3600 seconds.",
       "A day has 24 hours: 24 × 3600 = 86,400 seconds.", "A week has 7 days: 7 × 86,400 = 604,800 seconds."],
      ["An hour has 3600 seconds.", "A day has 24 hours, so 24 × 3600 = 86,400 seconds.",
       "That is the number of seconds we need."]),
    T(5, "Simplify the fraction 18/24.", "\\frac{3}{4}", ["3/4", "0.75", "\\dfrac{3}{4}", "\\frac34", "\\tfrac{3}{4}"],
      ["\\frac{4}{3}", "\\frac{2}{3}", "\\frac{3}{8}"],
      ["The greatest common divisor of 18 and 24 is 6.", "18 ÷ 6 = 3 and 24 ÷ 6 = 4.", "So 18/24 reduces to 3/4."],
      ["The greatest common divisor of 18 and 24 is 6.", "24 ÷ 6 = 4 and 18 ÷ 6 = 3.",
       "Putting the larger part on top gives 4/3."]),
    T(6, "What is 1/3 + 1/6? Give a fraction in lowest terms.", "1/2", ["\\frac{1}{2}", "0.5", "\\frac12"],
      ["2/9", "1/3", "2/3"],
      ["The common denominator is 6.", "1/3 = 2/6, so 2/6 + 1/6 = 3/6.", "3/6 reduces to 1/2."],
      ["Add the numerators and the denominators: (1 + 1)/(3 + 6).", "That is 2/9."]),
    T(7, "What percentage of 120 is 30?", "25%", ["25\\%", "25 \\%", "25.0%"], ["4%", "40%", "30%"],
      ["Divide the part by the whole: 30 / 120 = 0.25.", "Multiply by 100 to get a percentage: 25."],
      ["Divide: 120 / 30 = 4.", "So it is 4 percent."]),
    T(8, "A shirt costs $40 and is discounted by 15%. What is the sale price?", "$34.00",
      ["\\$34", "$34", "\\$34.00", "34.00"], ["$6.00", "$36.00", "$25.00"],
      ["The discount is 15% of 40 dollars: 0.15 × 40 = 6 dollars.", "The sale price is 40 − 6 = 34 dollars."],
      ["The discount is 15% of 40 dollars: 0.15 × 40 = 6 dollars.", "So the price asked for is 6 dollars."]),
    T(9, "Convert 120 mm to centimetres.", "12 cm", ["12\\text{ cm}", "12 \\mathrm{cm}", "12cm"],
      ["1.2 cm", "1200 cm", "120 cm"],
      ["There are 10 mm in 1 cm.", "So divide by 10: 120 / 10 = 12."],
      ["There are 100 mm in a centimetre.", "So 120 / 100 = 1.2."]),
    T(10, "How many degrees is each interior angle of a regular hexagon?", "120^\\circ",
      ["120^{\\circ}", "120", "120 ^\\circ"], ["60^\\circ", "108^\\circ", "720^\\circ"],
      ["The interior angles of an n-gon add up to (n − 2) × 180°.", "For n = 6 that is 4 × 180° = 720°.",
       "A regular hexagon has six equal angles, so each is 720° / 6 = 120°."],
      ["Each interior angle of a regular polygon is 360° / n.", "For a hexagon, 360° / 6 = 60°."], uni="120°"),
    T(11, "What is the exact value of sin 45°?", "\\sqrt{2}/2",
      ["\\frac{\\sqrt{2}}{2}", "\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt2}{2}", "\\dfrac{\\sqrt{2}}{2}", "0.70711"],
      ["\\frac{1}{2}", "\\sqrt{3}/2", "\\sqrt{2}"],
      ["Take a right isosceles triangle with legs 1; its hypotenuse is √2.",
       "Sine is opposite over hypotenuse, so sin 45° = 1/√2.", "Rationalising, 1/√2 = √2/2."],
      ["Use the triangle with opposite side 1 and hypotenuse 2.", "Then the sine is 1/2."], uni="√2/2"),
    T(12, "What is the circumference of a circle of radius 1?", "2\\pi", ["2 \\pi", "6.2832", "6.28319"],
      ["\\pi", "4\\pi", "\\pi^2"],
      ["The circumference is C = 2πr.", "With r = 1, C = 2π, about 6.2832."],
      ["The circumference is πr² for a circle.", "With r = 1 this is π."], uni="2π"),
    T(13, "Solve the system x + y = 3 and x − y = −1. Give the result as an ordered pair (x, y).", "(1, 2)",
      ["(1,2)", "\\left(1, 2\\right)", "(1.0, 2.0)"], ["(2, 1)", "(1, -2)", "(-1, 2)"],
      ["Adding the two equations gives 2x = 2, so x = 1.", "Substituting back, y = 3 − 1 = 2."],
      ["Adding the two equations gives 2x = 4, so x = 2.", "Then y = 3 − 2 = 1."]),
    T(14, "Find all real solutions of $x^2 - 4x + 3 = 0$. Give them as a set.", "\\{1, 3\\}",
      ["\\{3, 1\\}", "\\{1,3\\}", "\\left\\{1, 3\\right\\}"], ["\\{-1, -3\\}", "\\{1, -3\\}", "\\{2, 3\\}"],
      ["Factor: x² − 4x + 3 = (x − 1)(x − 3).", "Each factor gives a root: x = 1 and x = 3."],
      ["Factor as (x + 1)(x + 3).", "So x = −1 or x = −3."]),
    T(15, "Write, as an interval, the set of real numbers x for which $\\sqrt{x}$ is defined and x < 1.",
      "[0, 1)", ["[0,1)", "\\left[0, 1\\right)"], ["(0, 1)", "[0, 1]", "(-\\infty, 1)"],
      ["The square root is defined for x ≥ 0.", "Together with x < 1 this gives 0 ≤ x < 1: 0 is included, 1 is not."],
      ["The square root needs x > 0, and we also need x < 1.", "So both ends are open."]),
    T(16, "Which of these numbers is prime? (A) 21 (B) 23 (C) 25 (D) 27", "B", ["(B)", "\\text{B}", "\\text{(B)}"],
      ["C", "A", "D"],
      ["21 = 3 × 7, 25 = 5 × 5 and 27 = 3 × 9, so those three are composite.",
       "23 is not divisible by 2, 3 or 4, and 5² > 23, so 23 is prime; that is option B."],
      ["21 = 3 × 7 and 27 = 3 × 9 are composite.", "25 is odd and not divisible by 3, so it looks prime: option C."]),
    T(17, "What is the capital city of Australia?", "Canberra", ["canberra", "CANBERRA", "\\text{Canberra}"],
      ["Sydney", "Melbourne", "Perth"],
      ["Sydney is the largest city, but it is not the capital.",
       "The capital was purpose-built as a compromise between Sydney and Melbourne: Canberra."],
      ["Sydney is the largest and best-known city in Australia.", "The capital should be Sydney."]),
    T(18, "Write 0.00045 in scientific notation.", "4.5 \\times 10^{-4}",
      ["4.5 \\cdot 10^{-4}", "4.5e-4", "4.5\\times10^{-4}", "0.00045"],
      ["4.5 \\times 10^{-5}", "4.5 \\times 10^{4}", "45 \\times 10^{-4}"],
      ["Move the decimal point four places to the right to get 4.5.",
       "Moving it right means a negative exponent, so the power is 10 to the −4."],
      ["Count the zeros after the decimal point: there are four, plus one more step to pass the 4.",
       "That is five places, so the power is 10 to the −5."], uni="4.5 × 10^{-4}"),
    T(19, "Solve for x: 3x + 7 = 22.", "5", ["x = 5", "x=5", "5.0"], ["29/3", "15", "-5"],
      ["Subtract 7 from both sides: 3x = 15.", "Divide both sides by 3: x = 5."],
      ["Add 7 to both sides: 3x = 29.", "Divide by 3: x = 29/3."]),
    T(20, "Two fair six-sided dice are rolled. What is the probability that the sum is 7?", "\\frac{1}{6}",
      ["1/6", "\\dfrac{1}{6}", "6/36", "\\frac{6}{36}", "0.166667"],
      ["\\frac{1}{12}", "\\frac{7}{36}", "\\frac{1}{36}"],
      ["There are 6 × 6 = 36 equally likely outcomes.",
       "The pairs with sum 7 are (1,6), (2,5), (3,4), (4,3), (5,2) and (6,1): six of them.",
       "So the probability is 6/36 = 1/6."],
      ["The pairs with sum 7 are 1 and 6, 2 and 5, 3 and 4: three of them.",
       "Out of 36 outcomes that is 3/36 = 1/12."]),
    T(21, "A fair coin is flipped three times. What is the probability of getting exactly two heads?", "3/8",
      ["\\frac{3}{8}", "0.375", "\\frac38"], ["1/4", "1/2", "3/4"],
      ["There are 2³ = 8 equally likely sequences.", "Exactly two heads: HHT, HTH and THH, three sequences.",
       "So the probability is 3/8."],
      ["The number of heads can be 0, 1, 2 or 3: four cases.", "So exactly two heads has probability 1/4."]),
    T(22, "What is 15% of 80?", "12", ["12.0", "12.00"], ["68", "1.2", "120"],
      ["10% of 80 is 8 and 5% of 80 is 4.", "So 15% of 80 is 8 + 4 = 12."],
      ["15% of 80 is 12.", "Taking it off 80 leaves 80 − 12 = 68."]),
    T(23, "Convert 5 km to metres.", "5000 m", ["5,000 m", "5000\\text{ m}", "5000 \\mathrm{m}", "5000m"],
      ["500 m", "50,000 m", "0.005 m"],
      ["1 km = 1000 m.", "So 5 km = 5 × 1000 = 5000 m."],
      ["1 km is 100 m.", "So 5 km is 500 m."]),
    T(24, "A triangle has base 10 cm and height 6 cm. What is its area?", "30 cm^2",
      ["30\\text{ cm}^2", "30 \\mathrm{cm}^2", "30 cm^{2}"], ["60 cm^2", "16 cm^2", "15 cm^2"],
      ["The area of a triangle is half the base times the height.", "½ × 10 × 6 = 30 square centimetres."],
      ["The area is base times height.", "10 × 6 = 60 square centimetres."], uni="30 cm²"),
    T(25, "A right triangle has legs of length 5 and 12. How long is the hypotenuse?", "13", ["13.0", "\\sqrt{169}"],
      ["17", "\\sqrt{119}", "12"],
      ["By Pythagoras, c² = 5² + 12² = 25 + 144 = 169.", "So c = √169 = 13."],
      ["The hypotenuse is the longest side, so add the legs.", "5 + 12 = 17."]),
    T(26, "Evaluate (−2)^5.", "-32", ["-32.0"], ["32", "-10", "-16"],
      ["An odd power of a negative number is negative.", "2^5 = 32, so (−2)^5 = −32."],
      ["Raising to a power removes the sign.", "2^5 = 32, so (−2)^5 = 32."], uni="−32"),
    T(27, "Evaluate 2^10.", "1024", ["1,024", "1024.0"], ["2048", "1000", "512"],
      ["2^5 = 32.", "So 2^10 = 32 × 32 = 1024."],
      ["Split 10 as 5 + 6: 2^5 = 32 and 2^6 = 64.", "So 2^10 = 32 × 64 = 2048."]),
    T(28, "What is the chemical symbol for gold?", "Au", ["\\text{Au}", "\\mathrm{Au}"], ["Ag", "Go", "Gd"],
      ["The symbol comes from the Latin name for gold, aurum."],
      ["Precious metals take their symbols from Latin, and I recall the one from argentum."]),
    T(29, "Which is the largest planet in the Solar System? (A) Saturn (B) Earth (C) Jupiter (D) Neptune", "C",
      ["(C)", "\\text{C}", "\\textbf{C}"], ["A", "D", "B"],
      ["Jupiter's diameter is about 11 times Earth's, and its mass is more than twice that of all the other planets together.",
       "Saturn is second. So option C."],
      ["Saturn, with its enormous rings, looks the biggest.", "So option A."]),
    T(30, "Who wrote the novel Pride and Prejudice?", "Jane Austen", ["jane austen", "JANE AUSTEN", "\\text{Jane Austen}"],
      ["Charlotte Brontë", "Emily Brontë", "Charles Dickens"],
      ["Pride and Prejudice appeared in 1813.", "It is by the author of Sense and Sensibility and Emma, Jane Austen."],
      ["It is a classic English novel about marriage and manners, like Jane Eyre.",
       "So it is by the author of Jane Eyre, Charlotte Brontë."]),
    T(31, "What is the mean of 4, 8, 15, 16, 23 and 42?", "18", ["18.0", "108/6"], ["15.5", "21.6", "19"],
      ["The sum is 4 + 8 + 15 + 16 + 23 + 42 = 108.", "There are 6 numbers, so the mean is 108 / 6 = 18."],
      ["The middle two values are 15 and 16.", "Their average is 15.5."]),
    T(32, "Simplify √50.", "5\\sqrt{2}", ["5 \\sqrt 2", "5\\sqrt2", "7.0711"], ["2\\sqrt{5}", "25\\sqrt{2}", "10\\sqrt{5}"],
      ["50 = 25 × 2 and 25 is a perfect square.", "So √50 = √25 × √2 = 5√2."],
      ["50 = 2 × 25.", "So √50 = 2√5."], uni="5√2"),
    T(33, "What is the slope of the line through (1, 2) and (3, 8)?", "3", ["3.0", "6/2", "\\frac{6}{2}"],
      ["1/3", "-3", "5"],
      ["Slope is rise over run.", "(8 − 2) / (3 − 1) = 6 / 2 = 3."],
      ["Slope is the change in x over the change in y.", "(3 − 1) / (8 − 2) = 2 / 6 = 1/3."]),
    T(34, "What is the vertex of the parabola $y = x^2 - 6x + 5$?", "(3, -4)", ["(3,-4)", "\\left(3, -4\\right)"],
      ["(-3, 32)", "(3, 4)", "(3, -5)"],
      ["Complete the square: x² − 6x + 5 = (x − 3)² − 9 + 5 = (x − 3)² − 4.",
       "So the vertex is at x = 3 with y = −4."],
      ["The vertex has x = b / (2a) = −6 / 2 = −3.", "Then y = 9 + 18 + 5 = 32."], uni="(3, −4)"),
    T(35, "$1,000 is invested at 5% annual interest, compounded yearly. How much is in the account after 2 years?",
      "$1,102.50", ["\\$1,102.50", "\\$1102.50", "$1102.5", "1102.50"],
      ["$1,100.00", "$1,050.00", "$1,105.00"],
      ["After one year: 1000 × 1.05 = 1050 dollars.", "After two years: 1050 × 1.05 = 1102.50 dollars."],
      ["The interest is 5% of 1000, which is 50 dollars a year.", "After two years: 1000 + 2 × 50 = 1100 dollars."]),
    T(36, "How many minutes are there in 2.5 hours?", "150", ["150.0"], ["170", "250", "125"],
      ["One hour is 60 minutes.", "2.5 × 60 = 150."],
      ["2.5 hours is 2 hours and 50 minutes.", "120 + 50 = 170."]),
    T(37, "Solve |x − 1| ≤ 2. Write the solution set as an interval.", "[-1, 3]", ["[-1,3]", "\\left[-1, 3\\right]"],
      ["(-1, 3)", "[-3, 1]", "[1, 3]"],
      ["|x − 1| ≤ 2 means −2 ≤ x − 1 ≤ 2.", "Adding 1 throughout: −1 ≤ x ≤ 3, endpoints included."],
      ["−2 ≤ x − 1 ≤ 2 gives −1 ≤ x ≤ 3.", "At the endpoints the distance is exactly 2, so I will leave them out."],
      uni="[−1, 3]"),
    T(38, "Express 90° in radians.", "\\frac{\\pi}{2}", ["\\pi/2", "\\dfrac{\\pi}{2}", "1.5708", "\\frac{1}{2}\\pi"],
      ["\\frac{\\pi}{4}", "\\pi", "2\\pi"],
      ["180° corresponds to π radians.", "90° is half of 180°, so it is π/2."],
      ["A full turn of 360° is π radians.", "90° is a quarter turn, so π/4."], uni="π/2"),
    T(39, "What is 0.1 + 0.2?", "0.3", ["0.30", ".3", "3/10", "\\frac{3}{10}"], ["0.03", "0.12", "3"],
      ["One tenth plus two tenths is three tenths.", "So 0.1 + 0.2 = 0.3."],
      ["Add the digits 1 and 2 and keep two decimal places.", "That gives 0.03."]),
    T(40, "What is the median of 3, 9, 1, 7, 5, 11?", "6", ["6.0", "12/2"], ["4", "7", "5"],
      ["Sort the list: 1, 3, 5, 7, 9, 11.", "With six values the median is the mean of the 3rd and 4th: (5 + 7) / 2 = 6."],
      ["The middle two entries of the list are 1 and 7.", "Their mean is (1 + 7) / 2 = 4."]),
    T(41, "Two cards are drawn without replacement from a standard 52-card deck. What is the probability that both are aces?",
      "\\frac{1}{221}", ["1/221", "\\dfrac{1}{221}", "12/2652", "0.0045249"],
      ["\\frac{1}{169}", "\\frac{1}{13}", "\\frac{2}{221}"],
      ["The first card is an ace with probability 4/52 = 1/13.",
       "Given that, the second is an ace with probability 3/51 = 1/17.", "Multiplying: 1/13 × 1/17 = 1/221."],
      ["Each card is an ace with probability 4/52 = 1/13.", "Both: (1/13)² = 1/169."]),
    T(42, "Name the largest ocean on Earth (one word).", "Pacific", ["pacific", "PACIFIC", "\\text{Pacific}"],
      ["Atlantic", "Indian", "Arctic"],
      ["The Pacific covers about a third of Earth's surface, more than all the land together.",
       "The Atlantic is second."],
      ["The Atlantic separates the Americas from Europe and Africa.", "It is the biggest, I believe."]),
    T(43, "Which fraction equals 0.125? (A) 1/4 (B) 1/6 (C) 1/5 (D) 1/8", "D", ["(D)", "\\text{D}", "\\textbf{D}"],
      ["B", "A", "C"],
      ["8 × 0.125 = 1, so 1/8 = 0.125.", "The others are 0.25, 0.1666… and 0.2. So option D."],
      ["1/6 is about 0.125.", "So option B."]),
    T(44, "Find all real solutions of $x^2 = 2x$, as a set.", "\\{0, 2\\}", ["\\{2, 0\\}", "\\{0,2\\}", "\\left\\{0, 2\\right\\}"],
      ["\\{2\\}", "\\{0\\}", "\\{-2, 0\\}"],
      ["Move everything to one side: x² − 2x = 0.", "Factor: x(x − 2) = 0, so x = 0 or x = 2."],
      ["Divide both sides by x.", "That leaves x = 2."]),
    T(45, "What is the greatest common divisor of 84 and 126?", "42", ["42.0"], ["21", "14", "252"],
      ["84 = 2² × 3 × 7 and 126 = 2 × 3² × 7.", "The common part is 2 × 3 × 7 = 42."],
      ["84 = 4 × 21 and 126 = 6 × 21.", "So the common divisor is 21."]),
    T(46, "What is the least common multiple of 12 and 18?", "36", ["36.0"], ["216", "72", "6"],
      ["12 = 2² × 3 and 18 = 2 × 3².", "Take the highest powers: 2² × 3² = 36."],
      ["A common multiple is the product.", "12 × 18 = 216."]),
    T(47, "Convert 3.5 kg to grams.", "3500 g", ["3,500 g", "3500\\text{ g}", "3500 \\mathrm{g}", "3500g"],
      ["350 g", "35,000 g", "0.0035 g"],
      ["1 kg = 1000 g.", "So 3.5 kg = 3.5 × 1000 = 3500 g."],
      ["1 kg = 100 g.", "So 3.5 kg = 350 g."]),
    T(48, "Write 2/5 as a decimal.", "0.4", ["0.40", ".4", "\\frac{2}{5}"], ["2.5", "0.25", "0.04"],
      ["2/5 = 4/10.", "Four tenths is 0.4."],
      ["Divide 5 by 2.", "That is 2.5."]),
    T(49, "Which of these numbers is irrational? (A) 0.5 (B) √4 (C) √3 (D) 22/7", "C", ["(C)", "\\text{C}", "\\mathrm{C}"],
      ["D", "B", "A"],
      ["0.5 = 1/2, √4 = 2 and 22/7 are all ratios of integers.",
       "3 is not a perfect square, so √3 is irrational: option C."],
      ["22/7 is the usual approximation of π.", "π is irrational, so 22/7 is too: option D."]),
    T(50, "How many distinct arrangements are there of the letters of the word LEVEL?", "30", ["30.0"],
      ["120", "60", "20"],
      ["LEVEL has 5 letters: L twice, E twice and V once.", "The count is 5! / (2! × 2!) = 120 / 4 = 30."],
      ["There are 5 letters.", "They can be arranged in 5! = 120 ways."]),
    T(51, "What is the expected value of one roll of a fair six-sided die?", "3.5", ["7/2", "\\frac{7}{2}", "3.50"],
      ["3", "4", "21"],
      ["Each face 1 to 6 has probability 1/6.", "The faces add up to 21, and 21 / 6 = 3.5."],
      ["The faces run from 1 to 6.", "The middle face is 3."]),
    T(52, "What is 6 − 4 × 3?", "-6", ["-6.0"], ["6", "18", "-10"],
      ["Multiplication comes before subtraction: 4 × 3 = 12.", "Then 6 − 12 = −6."],
      ["Work left to right: 6 − 4 = 2.", "Then 2 × 3 = 6."], uni="−6"),
    T(53, "A town of 12,500 people grows by 8%. What is the new population?", "13,500",
      ["13500", "1.35 \\times 10^{4}"], ["13,000", "12,508", "1,000"],
      ["8% of 12,500 is 0.08 × 12,500 = 1,000.", "Adding it on: 12,500 + 1,000 = 13,500."],
      ["8% of 12,500 is 500.", "Adding it on: 13,000."]),
    T(54, "Multiply (2 × 10^3) by (4 × 10^5). Write the product in scientific notation.", "8 \\times 10^{8}",
      ["8 \\times 10^8", "8e8", "8 \\cdot 10^{8}", "8.0 \\times 10^{8}", "800,000,000"],
      ["8 \\times 10^{15}", "6 \\times 10^{8}", "8 \\times 10^{2}"],
      ["Multiply the coefficients: 2 × 4 = 8.", "Add the exponents: 3 + 5 = 8."],
      ["Multiply the coefficients: 2 × 4 = 8.", "Multiply the exponents: 3 × 5 = 15."]),
    T(55, "A price rises from 50 to 60. What is the percentage increase?", "20%", ["20\\%", "20 \\%", "20.0%"],
      ["16.7%", "10%", "120%"],
      ["The increase is 60 − 50 = 10.", "Relative to the original 50, that is 10 / 50 = 0.2, or 20 percent."],
      ["The increase is 10.", "10 out of 60 is about 16.7 percent."]),
    T(56, "Write 1/8 as a percentage.", "12.5%", ["12.5\\%", "12.50%"], ["0.125%", "8%", "1.25%"],
      ["1/8 = 0.125.", "Multiplying by 100 gives 12.5 percent."],
      ["1/8 = 0.125.", "So it is 0.125 percent."]),
    T(57, "How many sides does a heptagon have?", "7", ["7.0"], ["6", "8", "9"],
      ["The prefix hepta- means seven, as in heptathlon."],
      ["Hepta- sounds like hexa-, which means six."]),
    T(58, "At sea level, at what temperature in degrees Fahrenheit does water boil? Give the number.", "212",
      ["212.0", "212^\\circ"], ["100", "180", "32"],
      ["Water freezes at 32 °F.", "It boils 180 Fahrenheit degrees higher, at 212 °F."],
      ["Water boils at 100 degrees."], uni="212°"),
    T(59, "Solve for x: 2x − 5 = −11.", "-3", ["x = -3", "x=-3", "-3.0"], ["-8", "3", "8"],
      ["Add 5 to both sides: 2x = −6.", "Divide by 2: x = −3."],
      ["Subtract 5 from both sides: 2x = −16.", "Divide by 2: x = −8."], uni="x = −3"),
    T(60, "Which gas do plants take in for photosynthesis? (A) Carbon dioxide (B) Oxygen (C) Nitrogen (D) Hydrogen",
      "A", ["(A)", "\\text{A}", "\\textbf{(A)}"], ["B", "C", "D"],
      ["Photosynthesis turns carbon dioxide and water into glucose, releasing oxygen.",
       "So the gas taken in is carbon dioxide, option A."],
      ["Plants need oxygen like everything else that lives.", "So option B."]),
]

# ---------------------------------------------------------------------------------------------
# Pieces of text

INTROS = [
    "Let me work through this step by step.",
    "Okay, let's see.",
    "We need to figure this out carefully.",
    "Let's think about this.",
    "Alright.",
    "I'll solve this directly.",
    "First, let me recall the relevant facts.",
    "Let me think.",
    "",
    "",
]

FOREIGN_INTROS = [
    "Давайте решим задачу по шагам.",
    "Voyons cela étape par étape.",
    "让我们一步一步地思考。",
    "Lass uns das Schritt für Schritt durchrechnen.",
    "段階的に考えてみましょう。",
    "🤔 Hmm, let me think…",
    "Vamos a resolverlo paso a paso.",
    "Λύνουμε βήμα προς βήμα.",
]

CHECKS = [
    "Let me double-check: that is consistent.",
    "Quick check: working backwards gives the original numbers.",
    "That seems right.",
    "",
    "",
    "",
]

BOXED_CLOSINGS = [
    "So the final result is $\\boxed{@@}$.",
    "Therefore, the answer is \\boxed{@@}.",
    "\\boxed{@@}",
    "**Final Answer**\n\n\\boxed{@@}",
    "Hence \\(\\boxed{@@}\\).",
    "The result: \\boxed{@@}",
    "Ответ: \\boxed{@@}",
]

STATEMENT_CLOSINGS = [
    "The answer is @@.",
    "So the final answer is @@.",
    "Answer: @@",
    "Final answer: @@",
    "Thus, the answer is @@",
    "The answer is $@@$.",
]

LATEX_CLOSINGS = [
    "Therefore $@@$.",
    "So we get\n\\[\n@@\n\\]",
    "This gives \\(@@\\).",
    "Putting it together: $@@$",
]

REFUSALS = [
    "I'm sorry, but I can't help with this one.",
    "I don't have enough information to solve this reliably, so I won't guess.",
    "This question seems ambiguous to me. Could you clarify what is being asked?",
    "I'm not able to work this out with confidence. Please consult a reference.",
    "Sorry, I can't continue with this request.",
]

CUTOFFS = [
    "Now I need to",
    "Next, consider the",
    "So the",
    "Let me now combine these to get",
    "Hmm, wait, that means",
    "Putting this together, we",
]

GIVE_UPS = [
    "I'm going around in circles here and can't pin down the final value.",
    "I'm not confident in any of this, so I'll stop here.",
    "Something in my setup must be off; I need to start over.",
]

JUNK = ["???", "?", "??", "?!?", "¿¿¿", "!!!"]
# After "Answer:" a run of sentence punctuation is read as no answer at all (it is stripped like a
# full stop), so a statement carries junk that survives that stripping.
STATEMENT_JUNK = ["#?#", "@@", "¿¿¿", "~~~"]

# Paragraphs of second-guessing used to make over-long reasoning. No `$`, no braces, and never the
# word that the statement form looks for, so they never change which answer is found.
FILLER = [
    "Before settling on this, let me verify it another way. Small slips are easy to make in a problem like "
    "this, so I will go through each step again slowly and compare every intermediate value with the one I "
    "had before.",
    "Let me reread the question to be sure I am computing the right quantity. Problems sometimes ask for a "
    "rounded value, a different unit, or a related quantity instead of the obvious one. Reading it once "
    "more: {q}",
    "Hmm, wait. I should double-check the arithmetic digit by digit rather than trusting the first pass. "
    "Going through it again carefully, I get the same intermediate values as before.",
    "A quick sanity check is to estimate. A rough estimate should land close to the exact value; if it does "
    "not, something is off. Here the estimate is in the same range as what I computed, so nothing looks "
    "badly wrong.",
    "Let me also think about whether there is a trick. Is there any special case, a sign that could flip, "
    "a unit that needs converting, or an option worded to mislead? I do not see one, but it is worth being "
    "careful.",
    "Actually, let me approach it from a different direction and see whether the two methods agree. If they "
    "do, I can be more confident; if they disagree, one of them contains a mistake that I need to find.",
    "Going back to the first step: the setup follows directly from the definitions, so there is no "
    "ambiguity there. The second step is just arithmetic, which I have now checked twice.",
    "I keep wanting to second-guess this, so let me be systematic. I will list what is given, what is "
    "asked, and which relationship connects them, and then recompute from scratch.",
    "One more consideration is the form of the result. Should it be simplified, written as a fraction or a "
    "decimal, given with units? I will keep the form that is most natural for the question.",
    "Let me consider a common mistake here and make sure I have not made it. People often mix up the order "
    "of operations or drop a factor when converting, so I will check those two things specifically.",
    "Okay, I think I have been going back and forth enough. The computation comes out the same each time I "
    "redo it.",
    "Let me try plugging the result back into the original question to see whether it makes sense. Working "
    "backwards from it reproduces the given information, which is a good sign.",
    "To be thorough, I will recount. It is easy to lose track of a term when doing mental arithmetic, so I "
    "am writing each partial result down explicitly.",
    "Wait, maybe I misread one of the numbers. Let me look at the question again character by character. "
    "No, the numbers are as I had them.",
]


def plain(text: str) -> str:
    """A prompt made safe to quote inside reasoning: no `$` (money becomes words, math loses its $)."""
    text = re.sub(r"\$(\d[\d,.]*)", r"\1 dollars", text)
    return text.replace("$", "")


def render_work(sentences: list[str], rng: random.Random) -> str:
    style = rng.randrange(4)
    if style == 0 or len(sentences) == 1:
        return " ".join(sentences)
    if style == 1:
        return "\n".join(sentences)
    if style == 2:
        return "\n".join(f"Step {i}: {s}" for i, s in enumerate(sentences, 1))
    return "\n".join(f"- {s}" for s in sentences)


def join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def pad_to(parts: list[str], target: int, task: Task, work: list[str], rng: random.Random) -> list[str]:
    """Adds second-guessing paragraphs (and repeats of the work) until the text is `target` bytes."""
    out = list(parts)
    last = None
    while len(join(*out).encode()) < target:
        if rng.random() < 0.2:
            out.append(render_work(work, rng))
            continue
        i = rng.randrange(len(FILLER))
        if i == last:
            continue
        last = i
        out.append(FILLER[i].format(q=plain(task.prompt)))
    return out


def latex_safe(form: str) -> str | None:
    """`form` as it would sit inside a math span, or None if it cannot (money)."""
    if "$" in form:
        return None
    form = re.sub(r"(?<!\\)%", r"\\%", form)
    if re.fullmatch(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ ]+", form):
        form = f"\\text{{{form}}}"
    return form


def brace_depth(s: str) -> int:
    depth = best = 0
    for c in s:
        if c == "{":
            depth += 1
            best = max(best, depth)
        elif c == "}":
            depth -= 1
    return best


# ---------------------------------------------------------------------------------------------
# Reading a completion back, the way the `parse` leg is specified to (boxed, statement, latex)

STATEMENT_RE = re.compile(r"answer\s*(?:is\b|:)[ \t]*([^\n]*)", re.IGNORECASE)
LATEX_RE = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]|(?<![\\$])\$([^$]+?)\$", re.DOTALL)


def last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    i = start + len("\\boxed{")
    depth = 1
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j].strip()
    return None


def read_back(text: str) -> tuple[str, str] | None:
    boxed = last_boxed(text)
    if boxed is not None:
        return "boxed", boxed
    found = STATEMENT_RE.findall(text)
    if found:
        ans = found[-1].strip()
        ans = ans[:-1] if ans.endswith(".") else ans
        if len(ans) >= 2 and ans.startswith("$") and ans.endswith("$"):
            ans = ans[1:-1]
        return "statement", ans.strip()
    spans = [m for m in LATEX_RE.finditer(text)]
    if spans:
        m = spans[-1]
        return "latex", next(g for g in m.groups() if g is not None).strip()
    return None


# ---------------------------------------------------------------------------------------------
# Completions by kind. Each returns (text, style, intended answer or None).


def close(form: str, closings: list[str], rng: random.Random) -> str:
    choices = closings
    if "$" in form:  # money: keep it out of math delimiters
        choices = [c for c in closings if "$@@$" not in c and "\\(" not in c]
    return rng.choice(choices).replace("@@", form)


def make_right(task: Task, rng: random.Random, pin: tuple | None = None) -> tuple[str, str, str]:
    intro = rng.choice(INTROS)
    style = rng.choices(
        ["boxed", "boxed-alt", "statement", "latex", "two-boxed", "nested", "unicode", "long", "very-long"],
        weights=[22, 20, 13, 10, 6, 8, 8, 9, 6],
    )[0]
    nested = [f for f in task.rights if brace_depth(f) >= 2] or [f for f in task.rights if brace_depth(f) >= 1]
    if style == "nested" and not nested:
        style = "boxed-alt"
    if style == "latex" and all(latex_safe(f) is None for f in task.rights):
        style = "statement"
    style = pin[0] if pin else style
    work = render_work(task.work, rng)
    if style == "boxed":
        form = task.answer
        return join(intro, work, rng.choice(CHECKS), close(form, BOXED_CLOSINGS, rng)), style, form
    if style == "boxed-alt":
        form = pin[1] if pin else rng.choice(task.alts)
        return join(intro, work, rng.choice(CHECKS), close(form, BOXED_CLOSINGS, rng)), style, form
    if style == "nested":
        form = pin[1] if pin else rng.choice(nested)
        return join(intro, work, close(form, BOXED_CLOSINGS, rng)), style, form
    if style == "statement":
        form = pin[1] if pin else rng.choice(task.rights)
        return join(intro, work, close(form, STATEMENT_CLOSINGS, rng)), style, form
    if style == "latex":
        form = pin[1] if pin else rng.choice([f for f in (latex_safe(r) for r in task.rights) if f])
        return join(intro, work, close(form, LATEX_CLOSINGS, rng)), style, form
    if style == "two-boxed":
        wrong = task.wrongs[0]
        first = join(render_work(task.slip, rng), f"That gives \\boxed{{{wrong}}}.")
        second = join("Wait, let me recheck that.", work, f"So actually it is \\boxed{{{task.answer}}}.")
        return join(intro, first, second), style, task.answer
    if style == "unicode":
        form = pin[1] if pin else task.uni or task.answer
        return join(rng.choice(FOREIGN_INTROS), work, close(form, BOXED_CLOSINGS, rng)), style, form
    target = rng.randrange(3200, 5800) if style == "long" else rng.randrange(6200, 9000)
    form = rng.choice(task.rights)
    parts = pad_to([intro, work], target, task, task.work, rng)
    return join(*parts, close(form, BOXED_CLOSINGS, rng)), style, form


def wrong_lead(task: Task, form: str, rng: random.Random) -> list[str]:
    """Reasoning that ends at the wrong answer `form`."""
    if form in (task.wrongs[0], latex_safe(task.wrongs[0])):
        return task.slip
    if not re.search(r"\d", form):  # a letter or a name: recalled, not computed
        return [rng.choice(["I remember this one.", "This is a standard fact.", "I'm fairly sure of this."]),
                f"It is {plain(form)}."]
    ending = rng.choice(["Carrying on from there, I get {}.", "Finishing the computation gives {}.",
                         "So it comes out to {}."])
    return [task.work[0], ending.format(plain(form))]


def make_wrong(task: Task, rng: random.Random, pin: tuple | None = None) -> tuple[str, str, str]:
    intro = rng.choice(INTROS)
    style = rng.choices(
        ["boxed", "slip-boxed", "statement", "latex", "two-boxed", "unicode", "long", "very-long"],
        weights=[18, 26, 14, 10, 8, 6, 10, 8],
    )[0]
    if style == "latex" and all(latex_safe(w) is None for w in task.wrongs):
        style = "statement"
    style = pin[0] if pin else style
    if style in ("slip-boxed", "two-boxed", "long", "very-long"):
        form = task.wrongs[0]
    elif style == "latex":
        form = rng.choice([f for f in (latex_safe(w) for w in task.wrongs) if f])
    else:
        form = rng.choice(task.wrongs)
    form = pin[1] if pin and pin[1] else form
    reasoning = wrong_lead(task, form, rng)
    work = render_work(reasoning, rng)
    if style in ("boxed", "slip-boxed"):
        return join(intro, work, rng.choice(CHECKS), close(form, BOXED_CLOSINGS, rng)), style, form
    if style == "statement":
        return join(intro, work, close(form, STATEMENT_CLOSINGS, rng)), style, form
    if style == "latex":
        return join(intro, work, close(form, LATEX_CLOSINGS, rng)), style, form
    if style == "two-boxed":
        first = join(render_work(task.work, rng), f"So \\boxed{{{task.answer}}}.")
        second = join("Hmm, on second thought, I don't trust that. Let me redo it.", work,
                      f"So the answer is \\boxed{{{form}}}.")
        return join(intro, first, second), style, form
    if style == "unicode":
        return join(rng.choice(FOREIGN_INTROS), work, close(form, BOXED_CLOSINGS, rng)), style, form
    target = rng.randrange(3200, 5800) if style == "long" else rng.randrange(6200, 9000)
    parts = pad_to([intro, work], target, task, reasoning, rng)
    return join(*parts, close(form, BOXED_CLOSINGS, rng)), style, form


def make_no_answer(task: Task, rng: random.Random, pin: tuple | None = None) -> tuple[str, str, None]:
    intro = rng.choice(INTROS)
    style = rng.choices(["stops", "refusal", "gives-up", "long-stops", "very-long-stops"],
                        weights=[35, 20, 15, 18, 12])[0]
    style = pin[0] if pin else style
    if style == "stops":
        k = rng.randrange(1, len(task.work) + 1)
        return join(intro, render_work(task.work[:k], rng), rng.choice(CUTOFFS)), style, None
    if style == "refusal":
        return rng.choice(REFUSALS), style, None
    if style == "gives-up":
        return join(intro, render_work(task.slip, rng), "Hmm, that doesn't look right.",
                    rng.choice(GIVE_UPS)), style, None
    target = rng.randrange(3200, 5800) if style == "long-stops" else rng.randrange(6200, 9000)
    parts = pad_to([intro, render_work(task.work, rng)], target, task, task.work, rng)
    return join(*parts, rng.choice(CUTOFFS)), style, None


def make_too_long(task: Task, rng: random.Random, pin: tuple | None = None) -> tuple[str, str, None]:
    intro = rng.choice(INTROS)
    style = rng.choices(["boxed-essay", "latex-essay"], weights=[70, 30])[0]
    if style == "latex-essay" and latex_safe(task.answer) is None:
        style = "boxed-essay"
    words = " ".join(plain(s) for s in task.work)
    essay = words
    extras = ["This follows from the reasoning above and is consistent with every check I made.",
              "Each step can be verified independently, and together they determine the value uniquely.",
              "No other value satisfies all the conditions stated in the question."]
    while len(essay) < 230:
        essay += " " + extras[len(essay) % len(extras)]
    if style == "boxed-essay":
        box = f"\\text{{{essay} So the value is }} {task.answer}"
        return join(intro, render_work(task.work, rng), f"\\boxed{{{box}}}"), style, None
    span = f"\\text{{{essay}}} \\Rightarrow {latex_safe(task.answer)}"
    return join(intro, render_work(task.work, rng), f"Therefore\n\\[\n{span}\n\\]"), style, None


def make_unreadable(task: Task, rng: random.Random, pin: tuple | None = None) -> tuple[str, str, str]:
    intro = rng.choice(INTROS)
    junk = rng.choice(JUNK)
    style = rng.choices(["boxed-junk", "statement-junk"], weights=[75, 25])[0]
    style, junk = pin if pin else (style, junk)
    if style == "statement-junk" and not pin:
        junk = STATEMENT_JUNK[JUNK.index(junk) % len(STATEMENT_JUNK)]
    work = render_work(task.work[: rng.randrange(1, len(task.work) + 1)], rng)
    if style == "boxed-junk":
        return join(intro, work, "I'm not sure how to finish this.", f"\\boxed{{{junk}}}"), style, junk
    return join(intro, work, f"Answer: {junk}"), style, junk


MAKERS = {
    "right": make_right,
    "wrong": make_wrong,
    "no-answer": make_no_answer,
    "answer-too-long": make_too_long,
    "unreadable": make_unreadable,
}


# ---------------------------------------------------------------------------------------------
# Checks

FORBIDDEN_IN_NO_ANSWER = ("$", "\\boxed", "\\(", "\\[")


def check_line(task: Task, kind: str, text: str, form: str | None) -> None:
    got = read_back(text)
    where = f"{task.id} {kind}: {text[-160:]!r}"
    if kind == "no-answer":
        assert got is None, f"{where}: reads as {got}"
        assert not any(f in text for f in FORBIDDEN_IN_NO_ANSWER), where
        assert "answer" not in text.lower(), where
        return
    assert got is not None, f"{where}: no answer found"
    _, ans = got
    if kind == "answer-too-long":
        assert len(ans.encode()) > MAX_ANSWER_LEN + 20, f"{where}: only {len(ans.encode())} bytes"
        return
    assert len(ans.encode()) <= MAX_ANSWER_LEN, where
    assert ans == form, f"{where}: read {ans!r}, meant {form!r}"
    if kind == "right":
        assert form in task.rights or form in {latex_safe(r) for r in task.rights}, where
    elif kind == "wrong":
        assert form in task.wrongs or form in {latex_safe(w) for w in task.wrongs}, where
    elif kind == "unreadable":
        assert not re.search(r"[0-9A-Za-z]", form), where


def check_tasks() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) == len(set(ids)), "duplicate task id"
    for t in TASKS:
        assert len(t.wrongs) >= 3, t.id
        assert not set(t.wrongs) & set(t.rights), t.id
        for s in [*t.work, *t.slip]:
            assert "$" not in s and "answer" not in s.lower(), f"{t.id}: {s}"
        assert "answer" not in t.prompt.lower(), t.id
        # Plain numbers among the right forms must agree; plain numbers among the wrong ones must not.
        # (Rounded forms such as 6.2832 for 2π agree to a relative 1e-5.)
        values = [float(x.replace(",", "")) for x in t.rights if re.fullmatch(r"[-+]?[\d,]*\.?\d+", x)]
        assert all(close_to(v, values[0]) for v in values), f"{t.id}: right forms disagree: {values}"
        for w in t.wrongs:
            if re.fullmatch(r"[-+]?[\d,]*\.?\d+", w):
                v = float(w.replace(",", ""))
                assert not any(close_to(v, r, 1e-3) for r in values), f"{t.id}: wrong {w} is near a right form"


def close_to(a: float, b: float, rel: float = 1e-5) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


# ---------------------------------------------------------------------------------------------


# Lines every pool must hold, whatever the shuffle: (task, kind, style, form). Each takes the next
# free sample of its task; the kind plan is kept by swapping kinds with an unpinned line.
PINS = [
    ("qa-011", "right", "nested", "\\frac{1}{\\sqrt{2}}"),
    ("qa-011", "right", "boxed-alt", "\\frac{\\sqrt2}{2}"),
    ("qa-012", "right", "boxed-alt", "6.2832"),
    ("qa-012", "right", "two-boxed", None),
    ("qa-005", "right", "boxed-alt", "0.75"),
    ("qa-005", "right", "nested", "\\dfrac{3}{4}"),
    ("qa-007", "right", "boxed-alt", "25\\%"),
    ("qa-008", "right", "boxed-alt", "\\$34.00"),
    ("qa-016", "right", "boxed-alt", "(B)"),
    ("qa-017", "right", "statement", "canberra"),
    ("qa-017", "unreadable", "boxed-junk", "???"),
    ("qa-019", "right", "latex", "x = 5"),
    ("qa-027", "right", "boxed-alt", "1,024"),
    ("qa-002", "wrong", "boxed", "27"),
    ("qa-002", "right", "unicode", "−27"),
    ("qa-008", "right", "statement", "$34"),
    ("qa-010", "right", "boxed-alt", "120"),
    ("qa-011", "right", "unicode", "√2/2"),
    ("qa-014", "right", "nested", "\\left\\{1, 3\\right\\}"),
    ("qa-016", "right", "boxed-alt", "\\text{B}"),
    ("qa-017", "right", "boxed-alt", "CANBERRA"),
    ("qa-024", "right", "unicode", "30 cm²"),
    ("qa-012", "right", "unicode", "2π"),
    ("qa-004", "right", "statement", "604800"),
    ("qa-033", "wrong", "very-long", None),
    ("qa-050", "no-answer", "very-long-stops", None),
    ("qa-029", "wrong", "boxed", "A"),
    ("qa-034", "wrong", "two-boxed", None),
]


def place_pins(kinds: list[str]) -> dict[int, tuple]:
    index = {t.id: i for i, t in enumerate(TASKS)}
    used: Counter = Counter()
    pinned: dict[int, tuple] = {}
    for task_id, kind, style, form in PINS:
        slot = index[task_id] * SAMPLES_PER_TASK + used[task_id]
        used[task_id] += 1
        if kinds[slot] != kind:
            other = next(j for j, k in enumerate(kinds) if k == kind and j not in pinned and j != slot)
            kinds[slot], kinds[other] = kinds[other], kinds[slot]
        pinned[slot] = (style, form)
    return pinned


def build_pool(name: str) -> tuple[list[dict], list[dict], Counter, Counter, Counter]:
    plan = POOL_PLAN[name]
    rng = random.Random(plan["seed"])
    kinds = [k for k, n in plan["kinds"].items() for _ in range(n)]
    assert len(kinds) == len(TASKS) * SAMPLES_PER_TASK, f"{name}: plan has {len(kinds)} lines"
    rng.shuffle(kinds)
    pins = place_pins(kinds)
    lines, expected = [], []
    kind_count, style_count, size_count = Counter(), Counter(), Counter()
    slot = 0
    for task in TASKS:
        for sample in range(1, SAMPLES_PER_TASK + 1):
            kind = kinds[slot]
            slot += 1
            text, style, form = MAKERS[kind](task, rng, pins.get(slot - 1))
            check_line(task, kind, text, form)
            cid = f"{name}-{task.id}-{sample}"
            lines.append({"task": task.id, "completion": text, "id": cid})
            expected.append({"id": cid, "expect": kind})
            kind_count[kind] += 1
            style_count[(kind, style)] += 1
            n = len(text.encode())
            size = "over-hard" if n > HARD_LEN else "over-soft" if n > SOFT_LEN else "short"
            size_count[(kind, size)] += 1
            if kind == "right" and form == task.answer:
                size_count[("right", "exact")] += 1
    return lines, expected, kind_count, style_count, size_count


def dump(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> int:
    check_tasks()
    outputs = {"tasks.jsonl": dump([{"id": t.id, "prompt": t.prompt, "answer": t.answer} for t in TASKS])}
    all_expected: list[dict] = []
    report = []
    for name in POOL_PLAN:
        lines, expected, kinds, styles, sizes = build_pool(name)
        outputs[f"{name}.jsonl"] = dump(lines)
        all_expected += expected
        report.append(f"{name}.jsonl: {len(lines)} lines")
        for k in KINDS:
            st = ", ".join(f"{s} {n}" for (kk, s), n in sorted(styles.items()) if kk == k)
            report.append(f"  {k:16} {kinds[k]:4}  ({st})")
        for k in ("right", "wrong", "no-answer"):
            report.append(f"  {k:16} over 3000 bytes: {sizes[(k, 'over-soft')] + sizes[(k, 'over-hard')]:3}, "
                          f"over 6000 bytes: {sizes[(k, 'over-hard')]:3}")
        report.append(f"  right and exactly the reference: {sizes[('right', 'exact')]}")
    outputs["expected.jsonl"] = dump(all_expected)
    ids = [e["id"] for e in all_expected]
    assert len(ids) == len(set(ids)), "duplicate pool id"

    if "--check" in sys.argv[1:]:
        stale = [f for f, text in outputs.items() if (HERE / f).read_text(encoding="utf-8") != text]
        for f in stale:
            print(f"{f} differs from what make_pools.py writes", file=sys.stderr)
        return 1 if stale else 0
    for f, text in outputs.items():
        (HERE / f).write_text(text, encoding="utf-8")
    print(f"tasks.jsonl: {len(TASKS)} tasks")
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
