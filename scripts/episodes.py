#!/usr/bin/env python3
"""Plays one scripted three-turn episode per language (CUDA, Triton, Q&A) through `aorlta serve`
and checks the feedback each turn answers (docs/API.md, "Episodes"; docs/REWARDS.md, "Feedback").

    python3 scripts/episodes.py [--bin DIR] [--out DIR] [--fake] [--compiler C]

The services are configs/serve-episodes.yaml (the Q&A and CUDA tasks) and
configs/serve-episodes-triton.yaml (the Triton tasks, which share their ids with the CUDA ones,
so they need a service of their own); each is started on a free port, played and stopped in turn.

  lane    task       profile        turn 1                       turn 2             turn 3
  qa      qa-001     qa             a wrong answer               no answer found    the right answer
  cuda    transpose  kernels-speed  candidates/skip-zeros.cu     slower.cu          faster.cu
  triton  transpose  tritonk-speed  candidates/wrong.py          slower.py          faster.py

`skip-zeros.cu` does not store zeros: it is right on the typical inputs and wrong where the
task's legal zeros are drawn. `wrong.py` swaps rows and columns: it is right at the square sizes
only. The candidates are the validation suites' (examples/*/validation.yaml).

What is checked (a failed check is printed and the exit status is 1):
  - every turn is answered, the last with `done`, and the transcript (`GET /v1/episodes/{id}`)
    holds the same entries, rewards and feedback;
  - kernels, turn 1: the kernel-run leg broke, the reward is negative, and the feedback names the
    failing size (`Wrong at size I (VAR = VALUE, ...)`, I and the values those of the task's
    size that failed first) and, for every input, the family it drew, in words;
  - kernels, turn 2: correct and not faster (a reward in [0, 0.5));
  - kernels, turn 3: faster (a reward of at least 0.75), and the feedback names the speedup
    (`Speedup s = X`, X the timing leg's s) and the bandwidth achieved at the timed size (`B/s`),
    and, on a GPU, that bandwidth as a share of the GPU's peak (`% of the H100's ...`);
  - Q&A: turn 1 says what was read and that it is wrong (never the reference answer), turn 2 that
    no answer was found, turn 3 that the answer is correct;
  - no feedback holds any seed an entry's legs drew (`seeds`, `order_seed`, `input_seed` in their
    details), in decimal or in hexadecimal, nor the service's `[seed]` mark (a text that quoted a
    seed); a kernel lane whose entries hold no seed at all fails, as the scan would prove nothing;
  - on a GPU, no leg ran on the fake device; with --fake, every kernel leg did.

--fake runs the kernel legs on the CPU-simulated fake device (a copy of each config with
`fake-gpu: true` and the candidates' `fake:` behaviours from the validation suites in its
`kernel:` section). The fake device runs no source and times a model: the rewards and texts come
from the service's own legs, judge and feedback, but the verdicts are those the suites declare,
not measurements. Its device is in no table of peaks, so its timing feedback gives the bandwidth
in B/s without a share of a peak: with --fake that share is not checked; on a GPU it is.

Written under --out (default runs/episodes): for each lane `open.json`, `turn-1.json` to
`turn-3.json` (the service's answers as they came) and `transcript.json`; each config as served
and its service's log (`serve-episodes.yaml`, `serve-episodes.log`, ...); `summary.json` (the
table and the checks) and `summary.md` (the table, for scripts/render-run.py). Printed: the
table (lane, turn, reward, the feedback's line of the leg that decided the reward: the first
line is the parse leg's for every kernel turn) and each check.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The input families in the words the kernel-run leg's feedback uses
# (crates/kernel/src/feedback.rs, `family_words`); `specials` is matched by SPECIALS.
FAMILY_WORDS = {
    "typical": "values from the task's usual distribution",
    "top": "values near the top of the domain",
    "bottom": "values near the bottom of the domain",
    "row-window": "each row in a narrow window of values of its own",
    "constant-runs": "runs of equal values",
    "signs": "structured signs (alternating, per row or block, all one sign)",
    "magnitudes": "magnitudes spread over many orders",
}
SPECIAL = r"(?:zeros|subnormals|infinities|NaNs)"
SPECIALS = rf"(?:{SPECIAL}(?:, {SPECIAL})*|special values) mixed in"

LANES = [
    {
        "lane": "qa", "language": "Q&A", "config": "configs/serve-episodes.yaml",
        "task": "qa-001", "profile": "qa",
        "turns": [
            "17 × 23 is about 17 × 20 + 17 × 3 = 340 + 41, so the answer is \\boxed{381}.",
            "I would multiply the tens and the units separately and add the parts.",
            "17 × 23 = 17 × 20 + 17 × 3 = 340 + 51, so the answer is \\boxed{391}.",
        ],
    },
    {
        "lane": "cuda", "language": "CUDA", "config": "configs/serve-episodes.yaml",
        "task": "transpose", "profile": "kernels-speed",
        "suite": "examples/kernels", "fence": "cuda", "ext": ".cu",
        "turns": ["skip-zeros", "slower", "faster"],
    },
    {
        "lane": "triton", "language": "Triton", "config": "configs/serve-episodes-triton.yaml",
        "task": "transpose", "profile": "tritonk-speed",
        "suite": "examples/triton-kernels", "fence": "python", "ext": ".py",
        "turns": ["wrong", "slower", "faster"],
    },
]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def candidate_path(lane, case):
    return os.path.join(ROOT, lane["suite"], "candidates", lane["task"], case + lane["ext"])


def completion(lane, k):
    """Turn k's completion: the Q&A text, or the candidate file in one fenced block."""
    if "suite" not in lane:
        return lane["turns"][k]
    text = read(candidate_path(lane, lane["turns"][k]))
    if not text.endswith("\n"):
        text += "\n"
    return f"Here is my kernel.\n```{lane['fence']}\n{text}```\n"


def suite_fake(lane, case):
    """The `fake:` flow map of the validation suite's unlabelled case `case` of the lane's task,
    as written there (`{speed: 0.6}`), or None when the case has none (a correct kernel at the
    reference's speed)."""
    text = read(os.path.join(ROOT, lane["suite"], "validation.yaml"))
    for block in re.split(r"\n  - ", text)[1:]:
        fields = dict(re.findall(r"^\s*(task|case|label|fake): (.*)$", "  " + block, re.MULTILINE))
        if fields.get("task") == lane["task"] and fields.get("case") == case and "label" not in fields:
            return fields.get("fake")
    raise SystemExit(f"{lane['suite']}/validation.yaml has no case {lane['task']}/{case}")


def task_sizes(lane):
    """The task's `sizes:` list, each a dict of its variables' values as text."""
    text = read(os.path.join(ROOT, lane["suite"], "tasks", lane["task"] + ".yaml"))
    m = re.search(r"^sizes:\n((?:  - \{.*\}\n)+)", text, re.MULTILINE)
    if not m:
        raise SystemExit(f"{lane['suite']}/tasks/{lane['task']}.yaml: no `sizes:` list of flow maps")
    sizes = []
    for line in m.group(1).splitlines():
        body = line.strip()[3:-1]
        sizes.append({k.strip(): v.strip() for k, v in (p.split(":") for p in body.split(","))})
    return sizes


def served_config(config, lanes, fake, compiler, out):
    """The config to serve: as it stands, or a copy beside it (relative paths keep their
    meaning) with the fake device, the candidates' fake behaviours or the compiler written into
    its `kernel:` section."""
    src = os.path.join(ROOT, config)
    extra = []
    if fake:
        extra.append("  fake-gpu: true")
        fakes = []
        for lane in lanes:
            for case in lane["turns"] if "suite" in lane else []:
                spec = suite_fake(lane, case)
                if spec:
                    fakes.append(f"{{source: {json.dumps(candidate_path(lane, case))}, fake: {spec}}}")
        if fakes:
            extra.append("  fakes: [" + ", ".join(fakes) + "]")
    if compiler:
        extra.append(f"  compiler: {compiler}")
    name = os.path.basename(config)
    if not extra:
        text = read(src)
        path = src
    else:
        text, n = re.subn(r"^kernel:\n", "kernel:\n" + "\n".join(extra) + "\n", read(src), count=1, flags=re.MULTILINE)
        if n != 1:
            raise SystemExit(f"{config}: no `kernel:` section to write the device into")
        path = os.path.join(os.path.dirname(src), f".episodes-{os.getpid()}-{name}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)
    return path


class Service:
    """`aorlta serve` on a free port, its output in a log file."""

    def __init__(self, binary, config, log_path, wait_s=120.0):
        self.ready_file = log_path + ".ready"
        if os.path.exists(self.ready_file):
            os.remove(self.ready_file)
        self.log = open(log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [binary, "serve", "--config", config, "--bind", "127.0.0.1:0", "--ready-file", self.ready_file],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + wait_s
        while not (os.path.exists(self.ready_file) and read(self.ready_file).strip()):
            if self.proc.poll() is not None:
                self.log.flush()
                raise RuntimeError(f"aorlta serve exited ({self.proc.returncode}) before it was ready:\n"
                                   + read(log_path)[-3000:])
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"aorlta serve was not ready within {wait_s:.0f} s")
            time.sleep(0.2)
        self.url = "http://" + read(self.ready_file).strip()
        health = self.call("GET", "/healthz")
        if health.get("status") != "ok":
            self.stop()
            raise RuntimeError(f"/healthz answered {health}")

    def call(self, method, path, body=None, timeout=300):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read().decode(errors='replace')[:500]}") from None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        if os.path.exists(self.ready_file):
            os.remove(self.ready_file)


def play(service, lane, out):
    """Opens the lane's episode, posts its turns, reads the transcript; writes every answer."""
    d = os.path.join(out, lane["lane"])
    os.makedirs(d, exist_ok=True)
    head = service.call("POST", "/v1/episodes", {"task": lane["task"], "profile": lane["profile"],
                                                  "max_turns": len(lane["turns"])})
    write_json(os.path.join(d, "open.json"), head)
    answers = []
    for k in range(len(lane["turns"])):
        a = service.call("POST", f"/v1/episodes/{head['id']}/turns",
                         {"completion": completion(lane, k), "turn_id": f"{lane['lane']}/turn-{k + 1}"})
        write_json(os.path.join(d, f"turn-{k + 1}.json"), a)
        answers.append(a)
    transcript = service.call("GET", f"/v1/episodes/{head['id']}")
    write_json(os.path.join(d, "transcript.json"), transcript)
    return head, answers, transcript


def leg(entry, adapter):
    return next((x for x in entry.get("legs", []) if x.get("adapter") == adapter), None)


def deciding_line(answer):
    """The feedback's line of the leg that decided the reward: the first rewarded leg that did
    not pass, else the last rewarded leg (the timing for a kernel, the match for an answer)."""
    fb = answer.get("feedback") or ""
    legs = [x for x in answer["entry"].get("legs", []) if not x.get("informational")]
    pick = next((x for x in legs if x.get("state") != "clean"), legs[-1] if legs else None)
    if pick:
        for line in fb.splitlines():
            if line.startswith(pick["name"] + ": "):
                return line
    return fb.splitlines()[0] if fb else "(no feedback)"


def seeds_of(entry):
    """Every seed the entry's legs recorded, as the service's own scrub reads them."""
    seeds = set()
    for x in entry.get("legs", []):
        d = x.get("detail") or {}
        if isinstance(d, dict):
            seeds.update(s for s in d.get("seeds") or [] if isinstance(s, int))
            seeds.update(d[k] for k in ("order_seed", "input_seed") if isinstance(d.get(k), int))
    return seeds


class Checks:
    def __init__(self):
        self.rows = []

    def check(self, lane, what, ok, why=""):
        self.rows.append({"lane": lane, "check": what, "pass": bool(ok), "why": "" if ok else why})
        return ok

    def skip(self, lane, what, why):
        self.rows.append({"lane": lane, "check": what, "pass": None, "why": why})

    @property
    def failed(self):
        return [r for r in self.rows if r["pass"] is False]


def check_common(c, lane, answers, transcript, fake):
    name = lane["lane"]
    turns = transcript.get("turns", [])
    c.check(name, "three turns answered, the last done", len(answers) == 3 and answers[-1]["done"]
            and not any(a["done"] for a in answers[:-1]), f"done flags {[a['done'] for a in answers]}")
    same = len(turns) == len(answers) and all(
        t["entry"].get("feedback") == a["feedback"] and t["reward"] == a["reward"] and t["turn"] == a["turn"]
        for t, a in zip(turns, answers))
    c.check(name, "the transcript holds the turns as answered", same,
            f"{len(turns)} turns in the transcript; a reward or feedback differs")
    # Seeds: the answers' and the transcript's entries, scanned in every feedback.
    entries = [a["entry"] for a in answers] + [t["entry"] for t in turns]
    seeds = set().union(*(seeds_of(e) for e in entries))
    found = []
    for k, a in enumerate(answers):
        fb = a.get("feedback") or ""
        low = fb.lower()
        for s in seeds:
            if str(s) in fb:
                found.append(f"turn {k + 1} holds seed {s}")
            elif s >= 1 << 32 and format(s, "x") in low:
                found.append(f"turn {k + 1} holds seed {s} in hexadecimal ({s:x})")
        if "[seed]" in fb:
            found.append(f"turn {k + 1} holds `[seed]` (a text quoted a seed; the service's last guard hid it)")
    if "suite" in lane:
        c.check(name, f"the entries hold seeds to scan for ({len(seeds)})", seeds,
                "no seed in any leg's detail: the scan below would prove nothing")
    drawn = f"any of the {len(seeds)} seeds" if "suite" in lane else "a seed (a Q&A entry draws none)"
    c.check(name, f"no feedback holds {drawn}", not found, "; ".join(found))
    if "suite" in lane:
        kernel_legs = [x for a in answers for x in a["entry"]["legs"]
                       if x.get("adapter", "").startswith("kernel-") and x.get("state") != "skipped"]
        on_fake = [x for x in kernel_legs if (x.get("detail") or {}).get("fake_gpu")]
        if fake:
            c.check(name, "every kernel leg ran on the fake device", len(on_fake) == len(kernel_legs),
                     f"{len(kernel_legs) - len(on_fake)} kernel legs without `fake_gpu`")
        else:
            c.check(name, "no leg ran on the fake device", not on_fake,
                    f"{len(on_fake)} kernel legs have `fake_gpu: true`: the config asked for the fake device")


def check_kernel(c, lane, answers, fake):
    name = lane["lane"]
    first, second, third = answers
    # Turn 1: wrong, and the feedback says at which size and on which inputs.
    run = leg(first["entry"], "kernel-run")
    fb = first.get("feedback") or ""
    c.check(name, "turn 1: the kernel-run leg broke and the reward is negative",
            run and run["state"] == "broke" and first["reward"] is not None and first["reward"] < 0,
            f"kernel-run {run and run['state']} {run and run.get('reasons')}, reward {first['reward']}")
    failure = ((run or {}).get("detail") or {}).get("first_failure") or {}
    sizes = task_sizes(lane)
    m = re.search(r"Wrong at size (\d+) \(([^)]*)\)", fb)
    if c.check(name, "turn 1: the feedback names the failing size", m, f"no `Wrong at size I (...)` in: {fb!r}"):
        i = int(m.group(1))
        named = dict(p.split(" = ") for p in m.group(2).split(", "))
        c.check(name, f"turn 1: size {i} ({m.group(2)}) is the task's size {i} and the first that failed",
                i < len(sizes) and named == sizes[i] and failure.get("size") == i,
                f"the task's sizes are {sizes}; the leg's first failure is at size {failure.get('size')}")
    families = failure.get("families") or {}
    missing = []
    for buf, fam in families.items():
        words = re.escape(FAMILY_WORDS[fam]) if fam in FAMILY_WORDS else (SPECIALS if fam == "specials" else None)
        if words is None or not re.search(rf"`{re.escape(buf)}` held {words}", fb):
            missing.append(f"`{buf}`: {fam}")
    c.check(name, "turn 1: the feedback names each input's family (" +
            ", ".join(f"{b}: {f}" for b, f in families.items()) + ")",
            families and not missing, f"not named: {missing or 'the leg recorded no family'}")
    # Turn 2: correct, not faster.
    r2 = second["reward"]
    c.check(name, "turn 2: correct and not faster (reward in [0, 0.5))",
            r2 is not None and 0 <= r2 < 0.5 and "Correct: every output matched" in (second.get("feedback") or ""),
            f"reward {r2}, feedback {second.get('feedback')!r}")
    # Turn 3: faster, and the feedback gives s and the bandwidth.
    t = leg(third["entry"], "kernel-time")
    fb = third.get("feedback") or ""
    detail = (t or {}).get("detail") or {}
    r3 = third["reward"]
    c.check(name, "turn 3: faster (reward at least 0.75)",
            t and t["state"] == "clean" and r3 is not None and r3 >= 0.75,
            f"timing {t and t['state']} {t and t.get('reasons')}, reward {r3}")
    m = re.search(r"Speedup s = (\d+\.\d{3})", fb)
    s = detail.get("s")
    c.check(name, f"turn 3: the feedback names the speedup (s = {m.group(1) if m else '?'})",
            m and isinstance(s, (int, float)) and m.group(1) == f"{s:.3f}",
            f"no `Speedup s = X` matching the leg's s {s} in: {fb!r}")
    m = re.search(r"At ([^:]+): ([\d.]+ [kMGTP]?B) moved, ([\d.]+ [kMGTP]?B/s)", fb)
    said = f"{m.group(3)} at {m.group(1)}" if m else "?"
    c.check(name, f"turn 3: the feedback names the bandwidth ({said})",
            m, f"no `At SIZE: BYTES moved, RATE B/s` in: {fb!r}")
    device = (detail.get("device") or {}).get("name", "")
    peak = re.search(r"\((\d+\.\d)% of the ([^)]+?)'s ([\d.]+ [kMGTP]?B/s)\)", fb)
    if fake:
        c.skip(name, "turn 3: the bandwidth as a share of the GPU's peak",
               f"the fake device ({device}) is in no table of peaks")
    else:
        said = f"{peak.group(1)}% of the {peak.group(2)}'s {peak.group(3)}" if peak else "?"
        c.check(name, f"turn 3: the bandwidth as a share of the GPU's peak ({said})",
                peak, f"no `(P% of the MODEL's RATE)` for device {device!r} (a GPU not in the PEAKS table of "
                      f"crates/kernel/src/feedback.rs?) in: {fb!r}")


def check_qa(c, lane, answers, tasks_file):
    name = lane["lane"]
    tasks = [json.loads(line) for line in read(tasks_file).splitlines() if line.strip()]
    answer = next(t["answer"] for t in tasks if t["id"] == lane["task"])
    fbs = [a.get("feedback") or "" for a in answers]
    rewards = [a["reward"] for a in answers]
    c.check(name, "turn 1: read and wrong (reward -0.5)",
            rewards[0] == -0.5 and "read as `381`" in fbs[0] and "not correct" in fbs[0],
            f"reward {rewards[0]}, {fbs[0]!r}")
    c.check(name, "turn 2: no answer found (reward -1.0)",
            rewards[1] == -1.0 and "No answer was found" in fbs[1], f"reward {rewards[1]}, {fbs[1]!r}")
    c.check(name, "turn 3: correct (reward 1.0)", rewards[2] == 1.0 and "The answer is correct." in fbs[2],
            f"reward {rewards[2]}, {fbs[2]!r}")
    leaked = [k + 1 for k in range(2) if re.search(rf"(?<![\d.]){re.escape(answer)}(?![\d.])", fbs[k])]
    c.check(name, "turns 1 and 2: the feedback never names the reference answer", not leaked,
            f"turns {leaked} name `{answer}`")
    c.skip(name, "size and input family", "a Q&A task has neither")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release"),
                    help="the folder of aorlta and aorlta-harness (default target/release)")
    ap.add_argument("--out", default=os.path.join(ROOT, "runs", "episodes"),
                    help="where the answers go (default runs/episodes)")
    ap.add_argument("--fake", action="store_true", help="the kernel legs on the fake device")
    ap.add_argument("--compiler", default="", help="the compiler of CUDA sources (nvcc, nvrtc), not the config's")
    a = ap.parse_args(argv)
    # `timeout` ends a step with SIGTERM: exit through the `finally` blocks, which stop the
    # services and remove the configs written beside the originals.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("episodes: stopped by SIGTERM"))
    binary = os.path.join(os.path.abspath(a.bin), "aorlta")
    if not os.access(binary, os.X_OK):
        print(f"no aorlta in {a.bin}", file=sys.stderr)
        return 2
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    c = Checks()
    rows = []
    by_config = {}
    for lane in LANES:
        by_config.setdefault(lane["config"], []).append(lane)
    for config, lanes in by_config.items():
        served = served_config(config, lanes, a.fake, a.compiler, out)
        stem = os.path.splitext(os.path.basename(config))[0]
        service = None
        try:
            service = Service(binary, served, os.path.join(out, stem + ".log"))
            for lane in lanes:
                t0 = time.monotonic()
                try:
                    head, answers, transcript = play(service, lane, out)
                except (RuntimeError, OSError, ValueError, KeyError) as e:  # refused, lost or malformed
                    c.check(lane["lane"], "the episode is played", False, str(e))
                    continue
                secs = time.monotonic() - t0
                for k, ans in enumerate(answers):
                    rows.append({"lane": lane["lane"], "language": lane["language"], "task": lane["task"],
                                 "turn": k + 1, "reward": ans["reward"], "feedback": deciding_line(ans)})
                print(f"{lane['lane']}: episode {head['id']} at {lane['task']} ({lane['profile']}), "
                      f"{len(answers)} turns in {secs:.1f} s", flush=True)
                check_common(c, lane, answers, transcript, a.fake)
                if "suite" in lane:
                    check_kernel(c, lane, answers, a.fake)
                else:
                    check_qa(c, lane, answers, os.path.join(ROOT, "examples", "qa", "tasks.jsonl"))
        except RuntimeError as e:
            for lane in lanes:
                c.check(lane["lane"], f"the service of {config} starts", False, str(e))
        finally:
            if service:
                service.stop()
            if served != os.path.join(ROOT, config):
                os.remove(served)

    def fmt(r):
        return "unscored" if r is None else f"{r:.3f}"

    lines = [f"{'LANE':<7} {'TURN':<4} {'REWARD':>8}  FEEDBACK (the line of the leg that decided the reward)"]
    lines += [f"{r['lane']:<7} {r['turn']:<4} {fmt(r['reward']):>8}  {r['feedback']}" for r in rows]
    print("\n".join(lines))
    print()
    for r in c.rows:
        mark = {True: "pass", False: "FAIL", None: "skip"}[r["pass"]]
        print(f"{mark}  {r['lane']:<7} {r['check']}" + (f": {r['why']}" if r["why"] else ""))
    device = "fake device" if a.fake else "GPU"
    write_json(os.path.join(out, "summary.json"), {"fake": a.fake, "rows": rows, "checks": c.rows})
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write(f"# Episodes ({device})\n\n| lane | turn | reward | feedback (deciding leg) |\n|---|---|---|---|\n")
        for r in rows:
            cell = r["feedback"].replace("|", "\\|")
            f.write(f"| {r['lane']} | {r['turn']} | {fmt(r['reward'])} | {cell} |\n")
        f.write(f"\n{sum(1 for r in c.rows if r['pass'])} checks pass, {len(c.failed)} fail, "
                f"{sum(1 for r in c.rows if r['pass'] is None)} not checked.\n")
        for r in c.rows:
            if r["pass"] is not True:
                f.write(f"\n- {'FAIL' if r['pass'] is False else 'not checked'}: {r['lane']}, {r['check']}: {r['why']}")
        f.write("\n")
    if c.failed:
        names = "; ".join(f"{r['lane']}: {r['check']}" for r in c.failed)
        print(f"\nepisodes: {len(c.failed)} checks failed: {names}")
        return 1
    print(f"\nepisodes: every check passed on the {device} ({len(c.rows)} checks, "
          f"{sum(1 for r in c.rows if r['pass'] is None)} not checked); answers in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
