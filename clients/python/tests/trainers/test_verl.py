"""verl's own reward code (pinned in clients/python/trainer-tests) calling the service.

What runs: verl's ``RewardLoopWorker`` (the reward loop, verl's default path) built from a
config, loading ``aorlta_client/verl.py`` by path through verl's own loader, decoding the
responses of a ``DataProto`` with a toy tokenizer loaded by path, and awaiting the async
``compute_score`` for every sample; the same worker inside a Ray actor started by verl's own
``run_ppo`` from a config Hydra composes with the keys of docs/RECIPES.md's verl block (read
from that file), in a driver that cannot import ``aorlta_client`` itself, with and without the
block's ``PYTHONPATH`` key; the block's setup hook failing a config with the legacy keys verl
0.9.1 ignores; verl's registry refusing ``batch``; the legacy ``BatchRewardManager`` with
``compute_score_batch``; the legacy prime scoring function with ``compute_score_prime`` in its
process pool. What does not run: rollout, the actor.
"""

import asyncio
import json
import os
import pathlib
import re
import subprocess
import sys

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
    # verl's validation reports `acc`: a right answer 1.0, a wrong or unscored one 0.0.
    accs = [o["reward_extra_info"]["acc"] for o in out]
    assert accs == [1.0 if i % 3 else 0.0 for i in range(300)] + [0.0]
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


ROOT = pathlib.Path(__file__).resolve().parents[4]
RECIPES = ROOT / "docs" / "RECIPES.md"


def recipe_keys(url):
    """The verl keys of docs/RECIPES.md's verl 0.9.1 block, as a user copies them: the
    ``key=value`` words after ``python3 -m verl.trainer.main_ppo ...``, with ``$F``, ``$C`` and
    the service's address filled in."""
    text = RECIPES.read_text()
    block = re.search(r"```sh\n# verl 0\.9\.1 \(main_ppo, the reward loop\):\n(.*?)```", text, re.S)
    assert block, "docs/RECIPES.md has no verl 0.9.1 block"
    lines = block.group(1).splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("python3 -m verl.trainer.main_ppo ..."))
    keys = []
    for line in lines[start + 1 :]:
        if line.lstrip().startswith("#"):
            break
        keys.extend(w for w in line.rstrip("\\ ").split() if "=" in w)
        if not line.rstrip().endswith("\\"):
            break
    f = client_file("verl")
    fill = {"$F": f, "$C": str(pathlib.Path(f).parents[1]), "http://HOST:8787": url}
    out = []
    for k in keys:
        for a, b in fill.items():
            k = k.replace(a, b)
        out.append(k)
    return out


def test_the_recipe_names_only_keys_verl_reads():
    need("verl")
    keys = [k.split("=", 1)[0].lstrip("+") for k in recipe_keys("http://x")]
    assert "reward.custom_reward_function.path" in keys and "reward.custom_reward_function.name" in keys
    assert "ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH" in keys
    # The legacy keys verl 0.9.1's main_ppo composes and never reads.
    assert not [k for k in keys if k.startswith(("custom_reward_function.", "reward_model."))], keys


DRIVER = """
import json, pathlib, sys
overrides, out, tests_dir, samples = json.loads(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
try:
    import aorlta_client
    sys.exit("aorlta_client is importable in the driver: the test proves nothing")
except ImportError:
    pass
import ray
from hydra import compose, initialize_config_dir
from verl.trainer import main_ppo

class Probe:
    # Stands in for verl's TaskRunner: builds verl's reward loop worker in a Ray actor.
    def run(self, config):
        sys.path.insert(0, tests_dir)
        from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
        from verl_data import dataproto
        worker = RewardLoopWorker(config)
        got = worker.loop.run_until_complete(worker.compute_score_batch(dataproto(worker.input_tokenizer, samples)))
        (out / "scores.json").write_text(json.dumps([dict(o["reward_extra_info"], reward=o["reward_score"]) for o in got]))

config_dir = str(pathlib.Path(main_ppo.__file__).parent / "config")
with initialize_config_dir(config_dir=config_dir, version_base=None):
    config = compose(config_name="ppo_trainer", overrides=overrides)
try:
    main_ppo.run_ppo(config, task_runner_class=ray.remote(num_cpus=1)(Probe))
except Exception as e:
    (out / "error.txt").write_text(f"{type(e).__name__}: {e}")
finally:
    ray.shutdown()
"""


def _run_ppo(tmp_path, keys, tokenizer_path, samples):
    """verl's ``run_ppo`` in a driver whose own path has no ``aorlta_client``, with ``keys`` and
    the test's own settings (the toy tokenizer, a local two-CPU cluster); what the probe wrote."""
    infra = [
        f"actor_rollout_ref.model.path={tokenizer_path}",
        "ray_kwargs.ray_init.num_cpus=2",
        "+ray_kwargs.ray_init.include_dashboard=false",
        "+ray_kwargs.ray_init.address=local",
    ]
    out = tmp_path / f"run-{len(list(tmp_path.iterdir()))}"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AORLTA_URL")}
    driver = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(keys + infra), str(out), str(ROOT / "clients" / "python" / "tests"), json.dumps(samples)],
        env=env,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert driver.returncode == 0, driver.stdout[-3000:] + driver.stderr[-3000:]
    return out, driver.stdout + driver.stderr


def test_verls_run_ppo_scores_through_aorlta_with_the_recipes_keys_in_a_ray_worker(server, tasks, toy_tokenizer, tmp_path):
    need("verl")
    need("ray")
    _, path = toy_tokenizer
    t = tasks[0]
    samples = [[t["id"], f"so \\boxed{{{t['answer']}}}"], [t["id"], "\\boxed{-1}"], ["no-such-task", "\\boxed{1}"]]
    keys = recipe_keys(server) + ["+reward.custom_reward_function.reward_kwargs.task_mode=id"]
    out, log = _run_ppo(tmp_path, keys, path, samples)
    assert (out / "scores.json").exists(), (out / "error.txt").read_text() if (out / "error.txt").exists() else log[-3000:]
    got = json.loads((out / "scores.json").read_text())
    assert [g["reward"] for g in got] == [1.0, -0.5, 0.0]
    assert [g["acc"] for g in got] == [1.0, 0.0, 0.0]
    assert [g["aorlta_mask"] for g in got] == [1.0, 1.0, 0.0]
    # Without the PYTHONPATH key the Ray workers cannot import the client: the run fails.
    bare = [k for k in keys if ".env_vars.PYTHONPATH=" not in k]
    assert len(bare) == len(keys) - 1
    out, log = _run_ppo(tmp_path, bare, path, samples)
    assert not (out / "scores.json").exists()
    assert "No module named 'aorlta_client'" in log + ((out / "error.txt").read_text() if (out / "error.txt").exists() else ""), log[-3000:]


def test_the_setup_hook_fails_a_run_whose_reward_is_not_aorltas(server, monkeypatch, toy_tokenizer):
    need("verl")
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop import reward_loop
    from verl.trainer import main_ppo

    from aorlta_client import verl as drop_in

    # The hook patches verl's loader in this process; put it back after the test.
    monkeypatch.setattr(reward_loop, "load_reward_manager", reward_loop.load_reward_manager)
    drop_in.worker_setup()
    _, path = toy_tokenizer
    f = client_file("verl")
    config_dir = str(pathlib.Path(main_ppo.__file__).parent / "config")
    model = f"actor_rollout_ref.model.path={path}"
    legacy = [model, f"custom_reward_function.path={f}", "custom_reward_function.name=compute_score", "reward_model.reward_manager=naive"]
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        config = compose(config_name="ppo_trainer", overrides=legacy)
    with pytest.raises(drop_in.NotAorltaReward) as e:
        reward_loop.RewardLoopWorker(config)
    said = str(e.value)
    assert "reward.custom_reward_function.path (here None)" in said, said
    assert f"custom_reward_function.path={f}" in said and "reward_model.reward_manager=naive" in said, said
    assert "which verl's main_ppo ignores" in said, said
    # The documented keys pass the check (the worker is built).
    keys = [k for k in recipe_keys(server) if not k.startswith("+ray_kwargs")]
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        config = compose(config_name="ppo_trainer", overrides=[model] + keys)
    asyncio.set_event_loop(asyncio.new_event_loop())
    worker = reward_loop.RewardLoopWorker(config)
    assert worker.reward_manager is not None
