"""Episodes through the Python client against the real service: a scripted three-turn Q&A
episode (no answer, wrong, right) with its turn rewards and feedback, a retried turn answered
with the same turn, and the TRL environment class driven as ``environment_factory`` drives it
(``reset(**row)``, the ``submit`` tool, ``get_reward``)."""

from aorlta_client import Client
from aorlta_client.episodes import Episode, trl_environment


def test_a_scripted_episode_wrong_then_right(server, tasks):
    task = tasks[0]
    ep = Episode(Client(server), task["id"], max_turns=3, turn_reward="gain", discount=0.5)
    t0 = ep.turn("I am not sure.", turn_id="r0")
    assert (t0["turn"], t0["reward"]) == (0, -1.0)
    assert "No answer was found" in t0["feedback"]
    t1 = ep.turn("\\boxed{-12345}", turn_id="r1")
    assert t1["reward"] == 0.5, t1  # -0.5 less -1.0
    assert "read as `-12345`" in t1["feedback"] and "not correct" in t1["feedback"]
    assert task["answer"] not in t1["feedback"]
    again = ep.turn("\\boxed{0}", turn_id="r1")
    assert again == t1
    t2 = ep.turn(f"so \\boxed{{{task['answer']}}}")
    assert (t2["reward"], t2["done"]) == (1.5, True)
    assert t2["discounted_sum"] == -1.0 + 0.5 * 0.5 + 0.25 * 1.5
    assert "The answer is correct." in t2["feedback"]
    transcript = ep.transcript()
    assert [t["reward"] for t in transcript["turns"]] == [-1.0, 0.5, 1.5]


def test_the_trl_environment_takes_turns_and_owns_the_reward(server, tasks):
    env_class = trl_environment(server, max_turns=2)
    env = env_class()
    assert env.get_reward() is None
    env.reset(prompt=tasks[1]["prompt"], task=tasks[1]["id"])
    first = env.submit("\\boxed{-12345}")
    assert "not correct" in first
    assert env.get_reward() == -0.5
    second = env.submit(f"\\boxed{{{tasks[1]['answer']}}}")
    assert "correct" in second
    assert env.get_reward() == 1.0
    assert env.submit("more") == "No turns are left in this episode."
    # A fresh row opens a fresh episode.
    env.reset(prompt=tasks[0]["prompt"], task=tasks[0]["id"])
    assert env.get_reward() is None
