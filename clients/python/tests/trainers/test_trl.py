"""TRL's own reward calculation (pinned in clients/python/trainer-tests) calling the service.

What runs: a real ``GRPOTrainer`` built on CPU around a one-layer GPT-2 made here from a config
(no download) and the toy tokenizer, with both drop-ins (sync and async) as its reward
functions; its ``_calculate_rewards`` with plain and conversational completions (content as
text, as parts, and ``None``), a row without a task, and its ``log_metric``. What does not run:
generation and the optimisation step (they need no reward code of ours).
"""

import math

from _trainers import grpo_trainer


def _trainer(server, tokenizer, tmp_path, tasks):
    from aorlta_client.trl import async_reward_func, reward_func

    ds = {"prompt": [t["prompt"] for t in tasks[:4]], "task": [t["id"] for t in tasks[:4]]}
    return grpo_trainer(tokenizer, tmp_path, ds, [reward_func(server), async_reward_func(server)])


def test_grpo_calculate_rewards_with_both_drop_ins(server, tasks, toy_tokenizer, tmp_path):
    tokenizer, _ = toy_tokenizer
    trainer = _trainer(server, tokenizer, tmp_path, tasks)
    a, b = tasks[0], tasks[1]
    rows = [
        ({"prompt": a["prompt"], "task": a["id"]}, f"so \\boxed{{{a['answer']}}}"),
        ({"prompt": a["prompt"], "task": a["id"]}, "\\boxed{-12345}"),
        ({"prompt": b["prompt"], "task": b["id"]}, [{"role": "assistant", "content": [{"type": "text", "text": f"\\boxed{{{b['answer']}}}"}]}]),
        ({"prompt": b["prompt"], "task": b["id"]}, [{"role": "assistant", "content": None}]),
        ({"prompt": b["prompt"], "task": None}, "\\boxed{1}"),
    ]
    inputs = [dict(r, completion=c) for r, c in rows]
    prompts = [r["prompt"] for r, _ in rows]
    completions = [c for _, c in rows]
    rewards = trainer._calculate_rewards(inputs, prompts, completions, [[1]] * len(rows))
    assert tuple(rewards.shape) == (5, 2)
    for col in range(2):
        got = [float(x) for x in rewards[:, col]]
        assert got[:4] == [1.0, -0.5, 1.0, -1.0], got
        assert math.isnan(got[4]), "a row without a task is None, which TRL makes NaN"
    metrics = trainer._pending_metrics
    assert metrics["aorlta/unscored_frac"] == [0.2, 0.2], dict(metrics)
    assert metrics["aorlta/timed_out_frac"] == [0.0, 0.0]
