"""AORLTA on a local Ray cluster (``conftest.cluster``: a head and two fake-GPU nodes): one
``aorlta serve`` per node through ``aorlta_client.ray.start``, the Q&A and kernel example pools
scored through the router with one worker killed half-way, compared entry by entry with one
service's answers (``conftest.single_node``), then scored again by fresh workers from the shared
store; the HTTP front, the answers when no worker is left, and the command line."""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from _cluster import CLIENT, KERNELS, QA, need


def essence(e):
    """What must not depend on where an entry was scored: its id, task, reward, parts,
    reasons, and every leg's name, state and reasons."""
    return (
        e["id"],
        e["task"],
        e["reward"],
        e["scored"],
        e.get("parts"),
        [r["code"] for r in e.get("reasons") or []],
        [(l["name"], l["state"], [r["code"] for r in l.get("reasons") or []]) for l in e["legs"]],
    )


def start(config, cache, binary, **kw):
    import aorlta_client.ray as ar

    opts = dict(cache=cache, binary=binary, fake_gpu=True, kernel_chunk=4, qa_chunk=20, connections=1)
    opts.update(kw)
    return ar.start(config, **opts)


def refuses(url, timeout=10.0):
    """Waits until nothing listens at ``url`` any more; whether it got there in time."""
    host, port = url.split("//")[1].split(":")
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            socket.create_connection((host, int(port)), timeout=0.5).close()
        except OSError:
            return True
        time.sleep(0.05)
    return False


def score_killing_one(svc, items, profile):
    """Scores ``items`` and, once half of the entries are in, kills the first worker's actor
    (its ``aorlta serve`` dies with it); answers the entries and when the kill came."""
    ray = need("ray")
    victim = svc.workers[0]
    at = []

    def progress(done, total):
        # The router holds its lock here, so no other entry arrives before the worker is gone.
        if not at and done >= total // 2:
            ray.kill(svc.actors[0])
            assert refuses(victim["url"]), "the killed actor's aorlta serve still listens"
            at.append(done)

    return svc.score(items, profile, progress), at[0] if at else None


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def store(request, tmp_path_factory):
    """The shared store: one SQLite file on this host, or a PostgreSQL server (what several
    hosts share)."""
    if request.param == "postgres":
        return request.getfixturevalue("postgres")
    return tmp_path_factory.mktemp("shared-store") / "cache.sqlite"


@pytest.fixture(scope="module")
def first_run(cluster, config, store, binary, pools):
    """Both pools through two workers, the first killed half-way through each pool (a fresh
    pair of workers per pool), all writing to one shared store."""
    runs = {}
    for profile in ("kernels", "qa"):
        with start(config, store, binary) as svc:
            assert len(svc.workers) == 2
            entries, at = score_killing_one(svc, pools[profile], profile)
            runs[profile] = {"entries": entries, "at": at, "rows": svc.router.summary_rows(), "workers": svc.workers}
    return runs


def test_one_worker_per_node_each_with_its_fake_gpu(cluster, config, tmp_path, binary):
    with start(config, tmp_path / "cache.sqlite", binary) as svc:
        nodes = {w["node_id"] for w in svc.workers}
        assert len(nodes) == 2, svc.workers
        assert all(w["gpus"] == 1 and w["fake_gpu"] and w["profiles"] == ["kernels", "qa"] for w in svc.workers)
        # Each node's config names the shared store and its own fake GPU and lease folder.
        for w in svc.workers:
            cfg = json.loads(open(w["config"]).read())
            assert cfg["cache"] == {"kind": "sqlite", "path": str(tmp_path / "cache.sqlite")}
            assert cfg["gpus"] == [0] and cfg["kernel"]["fake-gpu"] is True
            assert cfg["kernel"]["lease-dir"].startswith(w["folder"])


@pytest.mark.parametrize("profile", ["kernels", "qa"])
def test_every_entry_comes_back_once_in_order_as_on_one_node(first_run, single_node, pools, profile):
    run = first_run[profile]
    got, want = run["entries"], single_node[profile]
    assert len(got) == len(pools[profile]) == len(want)
    assert [e["id"] for e in got] == [it["id"] for it in pools[profile]], "input order and ids"
    assert len({e["id"] for e in got}) == len(got), "each entry once"
    for g, w in zip(got, want):
        assert essence(g) == essence(w), (g["id"], essence(g), essence(w))


@pytest.mark.parametrize("profile", ["kernels", "qa"])
def test_the_killed_worker_is_retired_and_the_other_scores_the_rest(first_run, pools, profile):
    run = first_run[profile]
    n = len(pools[profile])
    assert run["at"] is not None and run["at"] < n, "the kill came before the last entry"
    victim, survivor = run["rows"]
    assert victim["state"] == "dead" and "liveness check failed" in victim["dead_reason"], victim
    assert survivor["state"] == "live", survivor
    assert victim["entries"] + survivor["entries"] == n, "every item answered by one worker, once"
    assert survivor["entries"] >= n - run["at"], "what came after the kill came from the survivor"
    if profile == "kernels":
        assert victim["kernel_entries"] > 0 and survivor["kernel_entries"] > 0, "kernel items went to both GPU workers"


def test_a_rerun_on_fresh_workers_is_served_from_the_shared_store(first_run, cluster, config, store, binary, pools, single_node):
    from aorlta_client import Client

    with start(config, store, binary) as svc:
        kernels = svc.score(pools["kernels"], "kernels")
        qa = Client(svc.url).score(pools["qa"], "qa")  # through the HTTP front
        counters = svc.router.cache_counters()
    for got, want in ((kernels, single_node["kernels"]), (qa, single_node["qa"])):
        assert [essence(e) for e in got] == [essence(e) for e in want]
        stored = [e for e, w in zip(got, want) if w["scored"]]
        assert stored and all(all(l["cached"] for l in e["legs"]) and e["elapsed_s"] == 0 for e in stored)
    total = {k: sum(c[k] for c in counters.values()) for k in next(iter(counters.values()))}
    # Every item was found in the store (or shared with an identical one in flight): no lookup
    # missed, so nothing was scored again.
    assert total["aorlta_cache_misses_total"] == 0, counters
    assert total["aorlta_cache_hits_total"] + total["aorlta_items_shared_total"] == len(kernels) + len(qa), counters


def test_kernel_items_go_only_to_gpu_nodes_and_qa_items_anywhere(cluster, config, tmp_path, binary, pools, single_node):
    # cpu_nodes: the head (no fake_gpu) gets a Q&A-only worker too.
    with start(config, tmp_path / "cache.sqlite", binary, cpu_nodes=True, connections=2) as svc:
        assert sorted(w["gpus"] for w in svc.workers) == [0, 1, 1]
        kernels = svc.score(pools["kernels"], "kernels")
        qa = svc.score(pools["qa"], "qa")
        rows = {r["key"]: r for r in svc.router.summary_rows()}
    assert [essence(e) for e in kernels] == [essence(e) for e in single_node["kernels"]]
    assert [essence(e) for e in qa] == [essence(e) for e in single_node["qa"]]
    cpu = next(r for r in rows.values() if r["gpus"] == 0)
    assert cpu["kernel_entries"] == 0 and cpu["entries"] > 0, rows
    assert sum(r["kernel_entries"] for r in rows.values()) == len(kernels)


def test_the_front_answers_openrlhf_and_health_like_a_service(cluster, config, tmp_path, binary, single_node):
    from aorlta_client import Client

    tasks = [json.loads(line) for line in (QA / "tasks.jsonl").read_text().splitlines()][:4]
    with start(config, tmp_path / "cache.sqlite", binary) as svc:
        front = Client(svc.url)
        health = front.health()
        assert health["live_workers"] == 2 and health["status"] == "ok"
        assert health["item_timeout_s"] == {"kernel": 150.0, "qa": 10.0}
        assert [t["id"] for t in front.tasks()] == [t["id"] for t in Client(svc.workers[0]["url"]).tasks()]
        query = [f"Q: {t['prompt']} A: \\boxed{{{t['answer']}}}<|im_end|>" for t in tasks]
        prompts = [f"Q: {t['prompt']} A: " for t in tasks]
        labels = [t["id"] for t in tasks]
        want = Client(svc.workers[1]["url"]).get_reward(query, prompts, labels)
        assert front.get_reward(query, prompts, labels) == want
        assert want["rewards"] == [1.0] * 4
        # The verl drop-in, pointed at the front: the reward loop's concurrent per-sample calls
        # (batched by the coalescer) and the legacy batch form.
        from aorlta_client import verl

        items = single_node["kernels"]
        pool = [json.loads(line) for line in (KERNELS / "pool.jsonl").read_text().splitlines()]

        async def loop():
            return await asyncio.gather(*(verl.compute_score("x", it["completion"], it["task"], url=svc.url, profile="kernels") for it in pool))

        want = [verl.to_score(e) for e in items]
        assert asyncio.run(loop()) == want
        assert verl.compute_score_batch(["x"] * len(pool), [it["completion"] for it in pool], [it["task"] for it in pool], url=svc.url, profile="kernels") == want


def test_with_no_worker_left_every_entry_is_unscored_never_a_number(cluster, config, tmp_path, binary, pools):
    ray = need("ray")
    from aorlta_client import Client

    with start(config, tmp_path / "cache.sqlite", binary) as svc:
        for a, w in zip(svc.actors, svc.workers):
            ray.kill(a)
            assert refuses(w["url"])
        items = pools["qa"][:5] + pools["kernels"][:5]
        entries = svc.score(items)
        assert [e["id"] for e in entries] == [it["id"] for it in items]
        for e in entries:
            assert e["reward"] is None and e["scored"] is False and e["reasons"][0]["code"] == "no-worker", e
        assert all(r["state"] == "dead" for r in svc.router.summary_rows())
        # OpenRLHF needs numbers: the profile's stand-in, flagged unscored, as the service gives.
        out = Client(svc.url).get_reward(["\\boxed{391}"], None, ["qa-001"])
        assert out["extra_logs"]["unscored"] == [1.0] and out["scores"] == [0.0]
        assert out["rewards"] == [0.0]  # examples/qa/profile.yaml's unscored-value
        status, _, body = Client(svc.url, retries=0).request("GET", "/healthz")
        assert status == 503 and json.loads(body)["status"] == "no-worker"


def test_the_command_line_scores_a_pool_on_the_cluster(cluster, config, tmp_path, binary, single_node):
    out = tmp_path / "rewards.jsonl"
    r = subprocess.run(
        [sys.executable, "-m", "aorlta_client.ray", "score", "--address", cluster.address, "--config", str(config),
         "--cache", str(tmp_path / "cache.sqlite"), "--fake-gpu", "--binary", binary, "--profile", "kernels",
         "--pool", str(KERNELS / "pool.jsonl"), "--out", str(out)],
        capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": str(CLIENT)},
    )
    assert r.returncode == 0, r.stderr[-3000:]
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [essence(e) for e in got] == [essence(e) for e in single_node["kernels"]]
    assert "entries (100.0%)" in r.stderr, "progress on stderr"
    lines = r.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("WORKER"))
    assert sum(1 for line in lines[header + 1 : header + 3] if " live " in f" {line} ") == 2, r.stdout
    summary = lines[lines.index(next(line for line in lines if line.startswith("COUNT"))) + 1].split()
    assert summary[:3] == [str(len(got)), str(sum(e["scored"] for e in got)), str(sum(not e["scored"] for e in got))]


def test_a_worker_that_cannot_start_says_why(cluster, tmp_path, binary):
    from _cluster import CONFIG

    bad = tmp_path / "serve.yaml"
    bad.write_text(CONFIG.replace("workers: 2,", "workerz: 2,"))
    with pytest.raises(Exception, match=r"aorlta serve exited with 1 before listening[\s\S]*workerz"):
        start(bad, None, binary)
    import ray

    # Nothing is left holding the nodes' fake GPUs (Ray frees them shortly after the kill).
    t0 = time.monotonic()
    while ray.available_resources().get("fake_gpu") != 2.0 and time.monotonic() - t0 < 20:
        time.sleep(0.2)
    assert ray.available_resources().get("fake_gpu") == 2.0


def test_a_bad_pool_line_is_named(tmp_path, config):
    need("ray")
    from aorlta_client.ray.cli import main

    bad = tmp_path / "pool.jsonl"
    bad.write_text('{"task": "qa-001", "completion": "x"}\n{"task": "qa-002"}\n')
    with pytest.raises(ValueError, match=r"pool.jsonl:2: field `completion` is missing"):
        from aorlta_client.ray.cli import read_pool

        read_pool(bad)
    assert main(["score", "--config", str(config), "--pool", str(bad), "--out", str(tmp_path / "o")]) == 2


def test_the_service_config_paths_are_made_absolute(tmp_path):
    need("ray")
    from aorlta_client.ray import read_config

    (tmp_path / "c").mkdir()
    path = tmp_path / "c" / "serve.yaml"
    path.write_text("tasks: [../t.jsonl]\nprofiles: p.yaml\ncache: {kind: sqlite, path: s.sqlite}\nkernel: {lease-dir: l}\n")
    cfg = read_config(path)
    assert cfg["tasks"] == [str(tmp_path / "t.jsonl")] and cfg["profiles"] == str(tmp_path / "c" / "p.yaml")
    assert cfg["cache"]["path"] == str(tmp_path / "c" / "s.sqlite") and cfg["kernel"]["lease-dir"] == str(tmp_path / "c" / "l")
    path.write_text("tasks: [a\nprofiles: b\n")
    with pytest.raises(ValueError, match=r"serve.yaml:\d+: not YAML"):
        read_config(path)


def test_verls_reward_loop_manager_scores_through_the_front_from_its_ray_actors(cluster, config, tmp_path, binary, pools, single_node):
    """verl's own ``RewardLoopManager`` (its reward path in a training run) in the same Ray
    cluster as the AORLTA workers: it starts its ``RewardLoopWorker`` actors on the cluster's
    nodes, each loads ``aorlta_client/verl.py`` by path and sends its chunk's samples to the
    front; the scores verl assembles are the single service's rewards, and an unscored sample
    gets the stand-in."""
    need("verl")
    torch = need("torch")
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager
    from verl_data import dataproto, toy_tokenizer

    tokenizer, path = toy_tokenizer(tmp_path / "tokenizer")
    # 39 pool items and one unscored sample: verl splits the batch evenly over its 2 workers.
    items = pools["qa"][:39]
    want = [e["reward"] if e["scored"] else -0.2 for e in single_node["qa"][:39]]
    samples = [(it["task"], it["completion"]) for it in items] + [("no-such-task", "\\boxed{1}")]
    with start(config, tmp_path / "cache.sqlite", binary) as svc:
        cfg = OmegaConf.create(
            {
                "actor_rollout_ref": {"model": {"path": str(path), "tokenizer_path": None}},
                "reward": {
                    "num_workers": 2,
                    "custom_reward_function": {
                        "path": str(CLIENT / "aorlta_client" / "verl.py"),
                        "name": "compute_score",
                        "reward_kwargs": {"url": svc.url, "profile": "qa", "unscored_score": -0.2, "task_mode": "id"},
                    },
                    "reward_manager": {"source": "register", "name": "naive", "module": {"path": None, "name": "x"}},
                    "reward_model": {"enable": False},
                },
            }
        )
        manager = RewardLoopManager(cfg)
        out = manager.compute_rm_score(dataproto(tokenizer, samples))
        served = sum(row["entries"] for row in svc.router.summary_rows())
    got = out.batch["rm_scores"].sum(dim=-1)
    assert torch.allclose(got, torch.tensor(want + [-0.2], dtype=got.dtype)), (got.tolist(), want)
    assert list(out.non_tensor_batch["aorlta_mask"]) == [1.0 if e["scored"] else 0.0 for e in single_node["qa"][:39]] + [0.0]
    assert served >= len(items), "the samples were scored by the cluster's workers"
