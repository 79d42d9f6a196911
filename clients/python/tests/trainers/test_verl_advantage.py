"""Unscored samples kept out of verl's advantage baseline, through verl's own code.

What runs: verl's ``compute_advantage`` (the function its trainer calls) with each
``aorlta_*`` estimator over batches where some samples' rewards are NaN (the reward function's
``unscored_score=nan``), compared with verl's own estimator over the same batch without those
samples; verl's reward loop worker giving the NaN; and verl's ``run_ppo`` starting Ray from a
config composed by Hydra with the documented setup-hook override, whose task runner (a Ray
actor, where verl computes advantages) finds ``aorlta_grpo`` registered. What does not run:
rollout, the actor and critic updates.
"""

import asyncio
import math
import pathlib

import pytest

from _trainers import client_file, need

ROOT = pathlib.Path(__file__).resolve().parents[4]
NAN = float("nan")


def _batch(scores, groups, width=4):
    """A DataProto as verl's trainer has it before the advantages: each score on the last
    token of a response of 2 to ``width`` tokens."""
    torch = need("torch")
    np = need("numpy")
    verl = need("verl")
    n = len(scores)
    lengths = [2 + i % (width - 1) for i in range(n)]
    mask = torch.tensor([[1.0] * k + [0.0] * (width - k) for k in lengths])
    rewards = torch.zeros(n, width)
    for i, (s, k) in enumerate(zip(scores, lengths)):
        rewards[i, k - 1] = s
    return verl.DataProto.from_dict(
        tensors={"token_level_rewards": rewards, "token_level_scores": rewards, "response_mask": mask},
        non_tensors={"uid": np.array(groups, dtype=object)},
    )


def _algo(**kw):
    from verl.trainer.config import AlgoConfig

    return AlgoConfig(**kw)


SCORES = [1.0, -0.5, NAN, 1.0, 0.25, NAN, NAN, NAN, 1.0, 1.0, -0.5, 0.0]
GROUPS = ["a", "a", "a", "a", "b", "b", "c", "c", "d", "d", "d", "d"]


@pytest.mark.parametrize("norm", [True, False])
def test_each_aorlta_estimator_is_verls_own_over_the_scored_samples(norm):
    need("verl")
    torch = need("torch")
    from verl.trainer.ppo.ray_trainer import compute_advantage

    from aorlta_client import verl_advantage

    names = verl_advantage.register()
    assert "aorlta_grpo" in names and "aorlta_rloo" in names
    assert verl_advantage.register() == names, "registering again changes nothing"
    scored = [i for i, s in enumerate(SCORES) if not math.isnan(s)]
    unscored = [i for i, s in enumerate(SCORES) if math.isnan(s)]
    for name in names:
        base = name.removeprefix("aorlta_")
        config = _algo(adv_estimator=name, norm_adv_by_std_in_grpo=norm)
        data = compute_advantage(_batch(SCORES, GROUPS), adv_estimator=name, config=config, norm_adv_by_std_in_grpo=norm)
        ref = compute_advantage(
            _batch(SCORES, GROUPS).select_idxs(scored),
            adv_estimator=base,
            config=_algo(adv_estimator=base, norm_adv_by_std_in_grpo=norm),
            norm_adv_by_std_in_grpo=norm,
        )
        adv = data.batch["advantages"]
        assert torch.isfinite(adv).all(), name
        assert torch.equal(adv[scored], ref.batch["advantages"]), f"{name}: scored rows differ from verl's {base}"
        assert torch.equal(data.batch["returns"][scored], ref.batch["returns"]), name
        assert not adv[unscored].any(), f"{name}: an unscored sample has an advantage"
        # The NaN rewards became 0.0 in place, in both of verl's tensors (one object here).
        for key in ("token_level_rewards", "token_level_scores"):
            t = data.batch[key]
            assert torch.isfinite(t).all(), (name, key)
            assert t[unscored].abs().sum() == 0, (name, key)
    # Group "b" keeps one scored sample: verl's GRPO treats a group of one as mean 0, std 1, so
    # its advantage is its score; group "c" (all unscored) gets 0.
    grpo = compute_advantage(_batch(SCORES, GROUPS), adv_estimator="aorlta_grpo", config=_algo(adv_estimator="aorlta_grpo"))
    last = grpo.batch["advantages"].sum(dim=-1) / grpo.batch["response_mask"].sum(dim=-1)
    assert last[4].item() == pytest.approx(0.25 / (1 + 1e-6))
    assert last[6].item() == 0.0 and last[7].item() == 0.0


def test_the_v1_trainers_advantage_step_uses_the_aorlta_estimators():
    # verl 0.9's default trainer (`trainer.use_v1=True`, verl/trainer/ppo/v1) computes advantages
    # with `compute_advantage_for_multi_trajectories`, which hands an estimator other than its
    # own GRPO to `compute_advantage`: the unscored samples stay out of the baseline there too.
    need("verl")
    need("transfer_queue")
    torch = need("torch")
    from verl.trainer.ppo.ray_trainer import compute_advantage
    from verl.trainer.ppo.v1.utils import compute_advantage_for_multi_trajectories

    from aorlta_client import verl_advantage

    verl_advantage.register()
    unscored = [i for i, s in enumerate(SCORES) if math.isnan(s)]
    keys = [f"{g}_0_{i}" for i, g in enumerate(GROUPS)]
    for name in ("aorlta_grpo", "aorlta_rloo"):
        config = _algo(adv_estimator=name)
        v1 = compute_advantage_for_multi_trajectories(_batch(SCORES, GROUPS), keys, adv_estimator=name, config=config)
        v0 = compute_advantage(_batch(SCORES, GROUPS), adv_estimator=name, config=config)
        assert torch.equal(v1.batch["advantages"], v0.batch["advantages"]), name
        assert torch.isfinite(v1.batch["advantages"]).all(), name
        assert not v1.batch["advantages"][unscored].any(), f"{name}: an unscored sample has an advantage"


def test_a_stock_estimator_turns_a_nan_into_a_nan_group():
    # Why `unscored_score=nan` needs an aorlta_* estimator: verl's own GRPO spreads the NaN.
    need("verl")
    torch = need("torch")
    from verl.trainer.ppo.ray_trainer import compute_advantage

    data = compute_advantage(_batch(SCORES, GROUPS), adv_estimator="grpo", config=_algo(adv_estimator="grpo"))
    adv = data.batch["advantages"]
    mask = data.batch["response_mask"].bool()
    assert torch.isnan(adv[0][mask[0]]).all(), "a scored sample of group a got a NaN advantage"
    assert torch.isfinite(adv[8:]).all(), "group d has no NaN"


def test_the_reward_loop_gives_nan_for_an_unscored_sample(server, monkeypatch, tasks, toy_tokenizer):
    need("verl")
    torch = need("torch")
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.ray_trainer import compute_advantage

    from verl_data import dataproto as _dataproto

    from aorlta_client import verl_advantage

    verl_advantage.register()
    monkeypatch.setenv("AORLTA_URL", server)
    tokenizer, path = toy_tokenizer
    config = OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": str(path), "tokenizer_path": None}},
            "reward": {
                "custom_reward_function": {"path": client_file("verl"), "name": "compute_score", "reward_kwargs": {"unscored_score": NAN, "task_mode": "id"}},
                "reward_manager": {"source": "register", "name": "naive", "module": {"path": None, "name": "x"}},
                "reward_model": {"enable": False},
            },
        }
    )
    t = tasks[0]
    samples = [(t["id"], f"\\boxed{{{t['answer']}}}"), (t["id"], "\\boxed{-1}"), ("no-such-task", "\\boxed{1}"), (t["id"], "so \\boxed{-7}")]
    # The worker runs on the thread's current loop, which an earlier test may have closed.
    asyncio.set_event_loop(asyncio.new_event_loop())
    worker = RewardLoopWorker(config)
    out = worker.loop.run_until_complete(worker.compute_score_batch(_dataproto(tokenizer, samples)))
    scores = [o["reward_score"] for o in out]
    assert scores[0] == 1.0 and scores[1] == -0.5 and scores[3] == -0.5
    assert math.isnan(scores[2]), "the unscored sample's reward is NaN"
    assert [o["reward_extra_info"]["aorlta_mask"] for o in out] == [1.0, 1.0, 0.0, 1.0]
    data = compute_advantage(_batch(scores, ["g"] * 4), adv_estimator="aorlta_grpo", config=_algo(adv_estimator="aorlta_grpo"))
    adv = data.batch["advantages"].sum(dim=-1) / data.batch["response_mask"].sum(dim=-1)
    # Group statistics over 1.0, -0.5, -0.5: mean 0, std sqrt(0.75).
    expected = [1.0 / math.sqrt(0.75), -0.5 / math.sqrt(0.75), 0.0, -0.5 / math.sqrt(0.75)]
    assert adv.tolist() == pytest.approx(expected, rel=1e-5)


def test_verls_run_ppo_registers_the_estimators_in_its_task_runner(tmp_path):
    need("verl")
    ray = need("ray")
    from hydra import compose, initialize_config_dir
    from verl.trainer import main_ppo

    config_dir = pathlib.Path(main_ppo.__file__).parent / "config"
    # The overrides a user adds to verl's command line (docs/RECIPES.md).
    overrides = [
        "algorithm.adv_estimator=aorlta_grpo",
        "+reward.custom_reward_function.reward_kwargs.unscored_score=nan",
        "+ray_kwargs.ray_init.runtime_env.worker_process_setup_hook=aorlta_client.verl.worker_setup",
        f"+ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH={ROOT / 'clients' / 'python'}",
        "ray_kwargs.ray_init.num_cpus=2",
        "+ray_kwargs.ray_init.include_dashboard=false",
        # A cluster of its own, even where another test's local cluster is running.
        "+ray_kwargs.ray_init.address=local",
    ]
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        config = compose(config_name="ppo_trainer", overrides=overrides)
    assert math.isnan(config.reward.custom_reward_function.reward_kwargs.unscored_score)
    found = tmp_path / "found.txt"

    class Probe:
        """Stands in for verl's TaskRunner: the actor where verl computes advantages."""

        def run(self, config):
            import numpy as np
            import torch
            from verl import DataProto
            from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY
            from verl.trainer.ppo.ray_trainer import compute_advantage

            name = config.algorithm.adv_estimator
            rewards = torch.tensor([[0.0, 1.0], [0.0, float("nan")], [0.0, 0.0]])
            data = DataProto.from_dict(
                tensors={"token_level_rewards": rewards, "response_mask": torch.ones(3, 2)},
                non_tensors={"uid": np.array(["u"] * 3, dtype=object)},
            )
            data = compute_advantage(data, adv_estimator=name, config=config.algorithm)
            adv = data.batch["advantages"].sum(dim=-1).tolist()
            found.write_text(f"{name in ADV_ESTIMATOR_REGISTRY} {adv}")

    ray.shutdown()
    try:
        main_ppo.run_ppo(config, task_runner_class=ray.remote(num_cpus=1)(Probe))
    finally:
        ray.shutdown()
    registered, adv = found.read_text().split(" ", 1)
    assert registered == "True"
    values = [float(x) for x in adv.strip("[]").split(",")]
    assert values[1] == 0.0 and values[0] > 0 > values[2], values
