"""verl's own reward code (pinned in clients/python/trainer-tests) calling the service.

What runs: verl's ``RewardLoopWorker`` (the reward loop, verl's default path) built from a
config, loading ``aorlta_client/verl.py`` by path through verl's own loader, decoding the
responses of a ``DataProto`` with a toy tokenizer loaded by path, and awaiting the async
``compute_score`` for every sample; verl's registry refusing ``batch``; the legacy
``BatchRewardManager`` with ``compute_score_batch``; the legacy prime scoring function with
``compute_score_prime`` in its process pool. What does not run: rollout, the actor, Ray.
"""

import asyncio

import pytest

from _trainers import client_file, need
from verl_data import dataproto as _dataproto


def _score_requests(url):
    from aorlta_client import Client

    for line in Client(url).metrics().splitlines():
        if line.startswith('aorlta_requests_total{route="/v1/score",status="200"}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _samples(tasks, n):
    out = []
    for i in range(n):
        t = tasks[i % len(tasks)]
        out.append((t["id"], f"so \\boxed{{{t['answer']}}}" if i % 3 else "\\boxed{-1}"))
    return out


def test_the_reward_loop_worker_awaits_the_async_compute_score(server, monkeypatch, tasks, toy_tokenizer):
    need("verl")
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls

    monkeypatch.setenv("AORLTA_URL", server)
    tokenizer, path = toy_tokenizer
    # The reward loop's registry knows no `batch` manager: the legacy recipe fails here.
    with pytest.raises(ValueError, match="Unknown reward manager: batch"):
        get_reward_manager_cls("batch")
    config = OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": str(path), "tokenizer_path": None}},
            "reward": {
                "custom_reward_function": {"path": client_file("verl"), "name": "compute_score", "reward_kwargs": {"unscored_score": -0.2, "task_mode": "id"}},
                "reward_manager": {"source": "register", "name": "naive", "module": {"path": None, "name": "x"}},
                "reward_model": {"enable": False},
            },
        }
    )
    worker = RewardLoopWorker(config)
    before = _score_requests(server)
    samples = _samples(tasks, 300) + [("no-such-task", "\\boxed{1}")]
    data = _dataproto(tokenizer, samples)
    out = worker.loop.run_until_complete(worker.compute_score_batch(data))
    assert len(out) == len(samples)
    scores = [o["reward_score"] for o in out]
    assert scores[:300] == [1.0 if i % 3 else -0.5 for i in range(300)]
    assert scores[300] == -0.2, "unscored: the stand-in from reward_kwargs"
    masks = [o["reward_extra_info"]["aorlta_mask"] for o in out]
    assert masks == [1.0] * 300 + [0.0]
    # 301 per-sample calls became a few batched requests.
    sent = _score_requests(server) - before
    assert 1 <= sent <= 5, f"{sent} requests for 301 samples"


def test_the_legacy_batch_manager_calls_compute_score_batch(server, monkeypatch, tasks, toy_tokenizer):
    need("verl")
    from verl.utils.import_utils import load_extern_object
    from verl.workers.reward_manager.batch import BatchRewardManager

    monkeypatch.setenv("AORLTA_URL", server)
    tokenizer, _ = toy_tokenizer
    fn = load_extern_object(module_path=client_file("verl"), object_name="compute_score_batch")
    manager = BatchRewardManager(tokenizer=tokenizer, num_examine=0, compute_score=fn)
    samples = _samples(tasks, 30)
    out = manager(_dataproto(tokenizer, samples), return_dict=True)
    tensor = out["reward_tensor"]
    last = [float(row[row.nonzero()].flatten()[-1]) if row.abs().sum() else 0.0 for row in tensor]
    assert last == [1.0 if i % 3 else -0.5 for i in range(30)]
    assert list(out["reward_extra_info"]["aorlta_mask"]) == [1.0] * 30


def test_prime_calls_positionally_in_its_process_pool(server, monkeypatch, tasks):
    need("verl")
    from verl.workers.reward_manager.prime import run_reward_scoring

    from aorlta_client.verl import compute_score_prime

    monkeypatch.setenv("AORLTA_URL", server)
    samples = _samples(tasks, 6)
    scores = run_reward_scoring(
        compute_score_prime,
        completions=[c for _, c in samples],
        references=[t for t, _ in samples],
        tasks=["aorlta"] * 6,
        num_processes=2,
    )
    assert scores == [1.0 if i % 3 else -0.5 for i in range(6)]
