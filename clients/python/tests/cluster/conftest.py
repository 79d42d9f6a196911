"""A local Ray cluster for the Ray tests: a head without GPUs and two worker processes standing
in for nodes, each with one ``fake_gpu`` (kernels run on the fake device). These tests need
``ray`` (the trainer venv, ``scripts/trainer-venv.sh``): elsewhere they are skipped, and with
``AORLTA_TRAINERS_REQUIRED=1`` (what ``scripts/test`` sets) a missing ``ray`` is a failure."""

import os
import pathlib
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile

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

    # The nodes' worker processes import aorlta_client from the checkout, and every process of
    # the cluster (verl's reward actors too) sends the workers' and the front's token.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(CLIENT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ.setdefault("AORLTA_TOKEN", "aorlta-cluster-tests-" + secrets.token_hex(8))
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


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server (``initdb`` and ``pg_ctl`` from ``AORLTA_PG_BIN``, what
    ``scripts/test`` exports; as the ``postgres`` user when run as root), listening only on a
    socket in its folder; yields a ``postgres://`` URL of its ``postgres`` database. Skipped
    without the server binaries, a failure when ``AORLTA_TRAINERS_REQUIRED=1``."""
    bin_dir = pathlib.Path(os.environ.get("AORLTA_PG_BIN", ""))
    if not (bin_dir.name and (bin_dir / "initdb").is_file() and (bin_dir / "pg_ctl").is_file()):
        msg = "no PostgreSQL server binaries: set AORLTA_PG_BIN (scripts/install-postgres.sh --find-only)"
        if os.environ.get("AORLTA_TRAINERS_REQUIRED") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="aorlta-pg-"))
    user = None
    if os.geteuid() == 0:
        # The server refuses to run as root.
        pw = pwd.getpwnam("postgres")
        os.chown(folder, pw.pw_uid, pw.pw_gid)
        user = "postgres"
    with socket.socket() as s:  # a free number for the socket's name
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data, log = folder / "data", folder / "server.log"

    def run(*args):
        out = subprocess.run(args, cwd=folder, user=user, env={**os.environ, "LC_ALL": "C"},
                             stdin=subprocess.DEVNULL, capture_output=True, text=True)
        assert out.returncode == 0, f"{args[0]} failed: {out.stdout}{out.stderr}"

    run(str(bin_dir / "initdb"), "-D", str(data), "-U", "aorlta", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
    opts = f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off -c synchronous_commit=off"
    run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", opts, "-w", "-t", "60", "start")
    try:
        yield f"postgresql://aorlta@/postgres?host={folder}&port={port}"
    finally:
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)
