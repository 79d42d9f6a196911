"""A standard dataset in answer mode, end to end: examples/gsm8k/gsm8k-rollouts.parquet (GSM8K-
style rows in verl's layout, a model's response in each; examples/gsm8k/make_dataset.py) scored
by each trainer's own reward code through the service, with the ground truth as the answer and
no task id anywhere, and held against ``aorlta score configs/gsm8k-score.yaml``'s rewards for the
same rows.

What runs: verl's ``RewardLoopWorker`` with its ``naive`` manager and the async
``compute_score`` (the default ``task_mode="auto"``: no ground truth is a loaded task id), and
its ``remote`` manager (which refuses async functions) with ``compute_score_sync`` on a local
Ray; TRL's ``GRPOTrainer._calculate_rewards`` with the dataset's ``answer`` column; OpenRLHF's
``SingleTurnAgentExecutor`` posting each row to ``/get_reward`` of two services whose
``get-reward.labels`` is ``answer``, given as OpenRLHF's command line gives a comma-separated
``--reward.remote_url`` (split on commas, then taken in turn).
"""

import asyncio
import json
import os
import pathlib
import subprocess

import pytest

from _trainers import client_file, grpo_trainer, need
from aorlta_service import ROOT, _binary, start_server, stop_server
from verl_data import dataproto

DATA = ROOT / "examples" / "gsm8k" / "gsm8k-rollouts.parquet"
PROFILE = ROOT / "examples" / "gsm8k" / "profile.yaml"


def _gsm8k_service(d):
    return start_server(
        d,
        config_text=f"tasks: {ROOT / 'examples' / 'qa' / 'tasks.jsonl'}\n"
        f"profiles: [{PROFILE}]\n"
        "cache: {kind: none}\n"
        "get-reward: {labels: answer}\n",
    )


@pytest.fixture(scope="module")
def gsm8k_server(tmp_path_factory):
    proc, url = _gsm8k_service(tmp_path_factory.mktemp("gsm8k-serve"))
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def rows():
    pandas = need("pandas")
    out = []
    for r in pandas.read_parquet(DATA).to_dict("records"):
        out.append(
            {
                "prompt": [dict(m) for m in r["prompt"]],
                "ground_truth": r["reward_model"]["ground_truth"],
                "extra_info": dict(r["extra_info"]),
                "response": r["response"],
            }
        )
    assert len(out) == 48
    return out


@pytest.fixture(scope="module")
def expected(tmp_path_factory, rows):
    """``aorlta score`` of the same file, in row order."""
    d = tmp_path_factory.mktemp("gsm8k-score")
    config = d / "gsm8k.yaml"
    config.write_text(f"dataset: {{file: {DATA}}}\nprofile: {PROFILE}\nout: {d / 'out'}\n")
    subprocess.run([str(_binary()), "score", "--quiet", str(config)], check=True, stdout=subprocess.DEVNULL)
    entries = [json.loads(l) for l in (d / "out" / "rewards.jsonl").read_text().splitlines()]
    by_id = {e["id"]: e["reward"] for e in entries}
    want = [by_id[f"gsm8k-rollouts#{r['extra_info']['index']}"] for r in rows]
    # The file holds right, wrong and answerless responses: the rewards are not all alike.
    assert {1.0, -0.5, -1.0} <= set(want), want
    return want


def _data(tokenizer, rows):
    samples = [(r["ground_truth"], r["response"]) for r in rows]
    return dataproto(tokenizer, samples, extra_infos=[r["extra_info"] for r in rows])


def _worker(url, tokenizer_path, manager, name):
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    config = OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": str(tokenizer_path), "tokenizer_path": None}},
            "reward": {
                "num_workers": 1,
                "custom_reward_function": {"path": client_file("verl"), "name": name, "reward_kwargs": {"url": url}},
                "reward_manager": {"source": "register", "name": manager, "module": {"path": None, "name": "x"}},
                "reward_model": {"enable": False},
            },
        }
    )
    return RewardLoopWorker(config)


def test_verl_reward_loop_scores_the_dataset_in_answer_mode(gsm8k_server, rows, expected, toy_tokenizer):
    need("verl")
    tokenizer, path = toy_tokenizer
    worker = _worker(gsm8k_server, path, "naive", "compute_score")
    out = worker.loop.run_until_complete(worker.compute_score_batch(_data(tokenizer, rows)))
    assert [o["reward_score"] for o in out] == expected
    assert [o["reward_extra_info"]["aorlta_answer"] for o in out] == [1.0] * len(rows)
    assert [o["reward_extra_info"]["aorlta_mask"] for o in out] == [1.0] * len(rows)


def test_verl_remote_manager_takes_the_sync_function(gsm8k_server, rows, expected, toy_tokenizer):
    need("verl")
    ray = need("ray")
    tokenizer, path = toy_tokenizer
    # A Ray of its own (`local`), never a cluster another test of this machine has started.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}})
    try:
        with pytest.raises(AssertionError, match="Async reward score is not supported"):
            _worker(gsm8k_server, path, "remote", "compute_score")
        worker = _worker(gsm8k_server, path, "remote", "compute_score_sync")
        out = worker.loop.run_until_complete(worker.compute_score_batch(_data(tokenizer, rows[:12])))
        assert [o["reward_score"] for o in out] == expected[:12]
    finally:
        ray.shutdown()


def test_trl_scores_the_answer_column(gsm8k_server, rows, expected, toy_tokenizer, tmp_path):
    from aorlta_client.trl import async_reward_func, reward_func

    tokenizer, _ = toy_tokenizer
    questions = [r["extra_info"]["question"] for r in rows]
    ds = {"prompt": questions[:4], "answer": [r["ground_truth"] for r in rows[:4]]}
    trainer = grpo_trainer(tokenizer, tmp_path, ds, [reward_func(gsm8k_server), async_reward_func(gsm8k_server)])
    inputs = [{"prompt": q, "answer": r["ground_truth"], "completion": r["response"]} for q, r in zip(questions, rows)]
    completions = [r["response"] for r in rows]
    rewards = trainer._calculate_rewards(inputs, questions, completions, [[1]] * len(rows))
    for col in range(2):
        assert [float(x) for x in rewards[:, col]] == expected
    assert trainer._pending_metrics["aorlta/answer_mode_frac"] == [1.0, 1.0]


def _get_reward_requests(url):
    from aorlta_client import Client

    for line in Client(url).metrics().splitlines():
        if line.startswith('aorlta_requests_total{route="/get_reward",status="200"}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_openrlhf_posts_answers_as_labels_to_a_list_of_urls(gsm8k_server, rows, expected, toy_tokenizer, tmp_path):
    need("openrlhf")
    from types import SimpleNamespace

    from openrlhf.utils.agent import SingleTurnAgentExecutor

    proc, second = _gsm8k_service(tmp_path)

    tokenizer, _ = toy_tokenizer

    class Engine:
        def __init__(self, text):
            self.ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]

        async def generate(self, prompt_token_ids, params, multi_modal_data=None):
            return SimpleNamespace(outputs=[SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)])

    # What train_ppo_ray.py does with `--reward.remote_url A,B`.
    remote_url = f"{gsm8k_server}/get_reward,{second}/get_reward".split(",")
    executor = SingleTurnAgentExecutor(remote_url)
    params = SimpleNamespace(max_tokens=256, logprobs=None)
    before = [_get_reward_requests(u) for u in (gsm8k_server, second)]

    async def go():
        return await asyncio.gather(
            *(
                executor.execute(
                    f"<|im_start|>user\n{r['prompt'][-1]['content']}<|im_end|>\n<|im_start|>assistant\n",
                    r["ground_truth"],
                    params,
                    2048,
                    tokenizer,
                    Engine(r["response"]),
                )
                for r in rows
            )
        )

    try:
        out = asyncio.run(go())
        sent = [_get_reward_requests(u) - b for u, b in zip((gsm8k_server, second), before)]
    finally:
        stop_server(proc)
    assert [o["reward"][0] for o in out] == expected
    assert sent == [24.0, 24.0], "the two URLs taken in turn, one sample per request"
