"""The scripted three-turn kernel episode the multi-turn adapters' tests play (verl's agent loop,
TRL's environment, the environment standard): at ``vector_add``, on the fake device, a kernel
wrong on one size, then a correct one slower than the reference, then a faster one.

The service runs the example kernel tasks with the speed profile
(``examples/kernels/profile-speed.yaml``) on the fake device, whose ``kernel.fakes`` key says how
the three candidate files behave there (the fake device runs no source: without it every source
would be a correct kernel at the reference's speed). The rewards and the feedback come from the
service's legs and judge, as on a GPU."""

import json

from aorlta_service import ROOT

KERNELS = ROOT / "examples" / "kernels"
TASK = "vector_add"
PROFILE = "kernels-speed"
#: The three turns: the candidate file and how it behaves on the fake device.
TURNS = [
    ("hardcoded-size", {"behaviour": "hardcoded-size"}),
    ("slower", {"speed": 1.3}),
    ("faster", {"speed": 0.6}),
]


def source(case: str) -> str:
    text = (KERNELS / "candidates" / TASK / f"{case}.cu").read_text()
    return text if text.endswith("\n") else text + "\n"


def completion(case: str) -> str:
    """A model's reply holding the candidate in one code block."""
    return f"Here is my kernel.\n```cuda\n{source(case)}```\n"


COMPLETIONS = [completion(case) for case, _ in TURNS]


def config(d) -> str:
    """The service config (``aorlta_service.start_server``'s ``config_text``)."""
    fakes = [{"source": str(KERNELS / "candidates" / TASK / f"{case}.cu"), "fake": fake} for case, fake in TURNS]
    return (
        f"tasks: {KERNELS / 'tasks'}\n"
        f"profiles: [{KERNELS / 'profile-speed.yaml'}]\n"
        "cache: {kind: none}\n"
        "gpus: [0]\n"
        f"kernel: {{fake-gpu: true, lease-dir: {d / 'leases'}, work-dir: {d / 'work'}, fakes: {json.dumps(fakes)}}}\n"
    )


def check_entry_rewards(rewards):
    """The entries' own rewards of the three turns: wrong, correct but slower, faster."""
    assert len(rewards) == 3, rewards
    assert rewards[0] == -0.5, rewards  # ref.native broke
    assert 0.0 < rewards[1] < 0.5, rewards  # correct, not faster
    assert rewards[2] >= 0.75, rewards  # faster


def check_feedback(feedback):
    """What each turn's feedback tells the model."""
    assert len(feedback) == 3, feedback
    first, second, third = feedback
    for part in ("ref.native: Wrong at size ", "(n = ", "the first mismatch is in `c` at element "):
        assert part in first, (part, first)
    assert "Correct: every output matched" in second, second
    assert "Timing: not faster than the reference." in second, second
    for part in ("Timing: faster than the reference. Speedup s = ", "(interval ", "Reference ", "yours ", "B/s"):
        assert part in third, (part, third)
