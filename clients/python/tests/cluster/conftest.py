"""A local Ray cluster for the Ray tests: a head without GPUs and two worker processes standing
in for nodes, each with one ``fake_gpu`` (kernels run on the fake device). These tests need
``ray`` (the trainer venv, ``scripts/trainer-venv.sh``): elsewhere they are skipped, and with
``AORLTA_TRAINERS_REQUIRED=1`` (what ``scripts/test`` sets) a missing ``ray`` is a failure."""

import os

import pytest

from _cluster import CLIENT, CONFIG, KERNELS, QA, need, pool
from aorlta_service import _binary, start_server, stop_server


@pytest.fixture(scope="session")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray-config") / "serve.yaml"
    path.write_text(CONFIG)
    return path


@pytest.fixture(scope="session")
def pools():
    return {"kernels": pool(KERNELS / "pool.jsonl"), "qa": pool(QA / "after.jsonl")}


@pytest.fixture(scope="session")
def single_node(tmp_path_factory, pools):
    """The entries one ``aorlta serve`` (fake GPU 0, no store) gives each pool: what the
    cluster must give too."""
    d = tmp_path_factory.mktemp("single-node")
    text = CONFIG + f"gpus: [0]\nkernel: {{fake-gpu: true, lease-dir: {d / 'leases'}}}\n"
    proc, url = start_server(d, config_text=text)
    from aorlta_client import Client

    c = Client(url)
    try:
        yield {name: c.score(items, name) for name, items in pools.items()}
    finally:
        stop_server(proc)


@pytest.fixture(scope="session")
def cluster():
    ray = need("ray")
    from ray.cluster_utils import Cluster

    # The nodes' worker processes import aorlta_client from the checkout.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(CLIENT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(2):
        c.add_node(num_cpus=1, resources={"fake_gpu": 1})
    ray.init(address=c.address)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="session")
def binary():
    return str(_binary())
