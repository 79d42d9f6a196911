"""OpenEnv's own serving and client code (``openenv-core``, pinned in clients/python/env-tests,
run in its own venv: scripts/env-venv.sh) over AORLTA episodes.

What runs: the FastAPI app OpenEnv's ``create_fastapi_app`` makes of
``aorlta_client.openenv_env.AorltaEnvironment`` (its WebSocket sessions, each with an environment
instance of its own, its action parsing and observation serialisation), served by uvicorn on
loopback; OpenEnv's ``EnvClient`` (through ``AorltaEnvClient`` and its ``sync()`` wrapper) plays
the scripted three-turn kernel episode (``kernel_episode``: wrong, correct but slower, faster)
on the fake device in one session while a second session plays a kernel-less one. What does not
run: a model writing the replies.
"""

import pathlib
import re
import socket
import threading
import time

import pytest

from aorlta_service import need

import kernel_episode


RECIPES = pathlib.Path(__file__).resolve().parents[4] / "docs" / "RECIPES.md"


def recipe_app(url):
    """The app docs/RECIPES.md's OpenEnv server block makes (run as a user copies it, with the
    service's address filled in)."""
    block = re.search(r"```python\n# OpenEnv server \(openenv-core 0\.3\.0\):\n(.*?)```", RECIPES.read_text(), re.S)
    assert block, "docs/RECIPES.md has no OpenEnv server block"
    names = {}
    exec(block.group(1).replace("http://HOST:8787", url), names)
    return names["application"]


@pytest.fixture(scope="module")
def env_url(kernel_server):
    need("openenv")
    uvicorn = need("uvicorn")

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(recipe_app(kernel_server), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    t0 = time.monotonic()
    while not server.started:
        assert t.is_alive() and time.monotonic() - t0 < 30, "the OpenEnv app did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    t.join(timeout=10)


def test_openenv_sessions_play_aorlta_episodes(env_url, kernel_server):
    from aorlta_client import Client
    from aorlta_client.openenv_env import AorltaEnvClient, SubmitAction

    with AorltaEnvClient(base_url=env_url).sync() as env, AorltaEnvClient(base_url=env_url).sync() as other:
        first = env.reset(task=kernel_episode.TASK)
        assert first.reward is None and not first.done
        tasks = {t["id"]: t["prompt"] for t in Client(kernel_server).tasks()}
        assert first.observation.prompt == tasks[kernel_episode.TASK]
        other.reset(task=kernel_episode.TASK)

        steps = []
        for k, completion in enumerate(kernel_episode.COMPLETIONS):
            steps.append(env.step(SubmitAction(completion=completion, turn_id=f"t{k}")))
            if k == 0:
                # A second session's turns go to its own episode.
                lone = other.step(SubmitAction(completion="I would loop over the elements."))
                assert (lone.reward, lone.observation.turn) == (-1.0, 0)
                assert "No fenced code block" in lone.observation.feedback
                # A retried step (same turn id) answers the same turn, whatever it sends.
                again = env.step(SubmitAction(completion="anything", turn_id="t0"))
                assert again.observation == steps[0].observation and again.reward == steps[0].reward

        own = [s.observation.entry_reward for s in steps]
        kernel_episode.check_entry_rewards(own)
        kernel_episode.check_feedback([s.observation.feedback for s in steps])
        # turn_reward gain: each turn's reward is its entry's less the previous one's.
        assert [s.reward for s in steps] == [own[0], own[1] - own[0], own[2] - own[1]]
        assert [s.done for s in steps] == [False, False, True]
        sums = [s.observation.discounted_sum for s in steps]
        assert abs(sums[2] - sum(0.5**k * r for k, r in enumerate(s.reward for s in steps))) < 1e-9
        episode = steps[0].observation.episode
        assert {s.observation.episode for s in steps} == {episode}

        # After the last turn: done, no reward; the state says the episode.
        after = env.step(SubmitAction(completion="more"))
        assert after.done and after.reward is None
        assert after.observation.feedback == "No turns are left in this episode."
        state = env.state()
        assert (state.aorlta_episode, state.task, state.step_count, state.done) == (episode, kernel_episode.TASK, 3, True)
        assert state.rewards == [s.reward for s in steps]
        transcript = Client(kernel_server)._json("GET", f"/v1/episodes/{episode}")
        assert [t["reward"] for t in transcript["turns"]] == state.rewards
