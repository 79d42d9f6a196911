"""``python -m aorlta_client.ray``: AORLTA over a Ray cluster from a shell.

- ``score``: start one ``aorlta serve`` per node, score a pool through the router, write the
  entries in pool order (``--out``), print a summary table, stop the workers.
- ``serve``: start the workers and the router's HTTP front (``--bind``), print its URL, and
  keep them until SIGINT or SIGTERM; trainers point ``AORLTA_URL`` (verl's
  ``reward_kwargs.url``, OpenRLHF's ``--reward.remote_url URL/get_reward``) at it and send its
  token (``AORLTA_TOKEN``, or ``--token-file``): a front beyond loopback requires one.
- ``bench``: the router's throughput over the cluster's workers (a table of figures).

Progress goes to stderr, tables to stdout. docs/SCALING.md has the commands for N nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Sequence

from aorlta_client.client import AorltaError
from aorlta_client.ray.tables import table as _table, workers_table

USAGE_EXAMPLE = """examples:
  python -m aorlta_client.ray score --address auto --config configs/serve-kernels.yaml \\
      --cache postgres://aorlta@db-host/aorlta --pool pool.jsonl --out rewards.jsonl
  AORLTA_TOKEN=$(cat token) python -m aorlta_client.ray serve --address auto --config configs/serve-qa.yaml --bind 0.0.0.0:8787
"""


def _workers_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", default="auto", help="the Ray cluster: auto (the running one, default), ray://HOST:PORT, HOST:PORT, local (a fresh one-node Ray), or local:N (a fresh head and N nodes on this machine, each with one fake_gpu: the tests' cluster)")
    p.add_argument("--config", required=True, type=pathlib.Path, help="the service config every node runs (docs/OPERATIONS.md, Configuration)")
    p.add_argument("--cache", help="the shared store: postgres://USER@HOST/DB across hosts, or a SQLite file on one host (default: the config's cache)")
    p.add_argument("--binary", help="the aorlta executable on the nodes (default: $AORLTA_BIN, else aorlta on PATH)")
    p.add_argument("--fake-gpu", action="store_true", help="kernels on the fake device; nodes are those with the resource fake_gpu")
    p.add_argument("--resource", help="the Ray resource that marks a node and counts its GPUs (default GPU, or fake_gpu with --fake-gpu)")
    p.add_argument("--gpus-per-node", type=int, help="GPUs to take on each node (default: all of the node's)")
    p.add_argument("--nodes", type=int, help="at most this many nodes")
    p.add_argument("--cpu-nodes", action="store_true", help="also a Q&A-only worker on nodes without the resource")
    p.add_argument("--num-cpus", type=float, default=0, help="CPUs each worker reserves from Ray (default 0)")
    p.add_argument("--bind-host", help="the address the workers listen on (default: each node's IP)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="environment for the services (repeatable), e.g. AORLTA_NVCC=/usr/local/cuda/bin/nvcc")
    p.add_argument("--qa-chunk", type=int, default=256, help="Q&A items per request (default 256)")
    p.add_argument("--kernel-chunk", type=int, default=8, help="kernel items per request (default 8)")
    p.add_argument("--connections", type=int, default=4, help="Q&A requests in flight per worker (default 4; a worker's kernel chunks of a batch are all sent at once)")
    p.add_argument("--balance", type=float, default=0.1, help="how far over its GPU share of a batch's kernel items a worker may go to keep items on their first node (default 0.1)")
    p.add_argument("--start-timeout", type=float, default=180.0, help="seconds to wait for the workers (default 180)")
    p.add_argument("--token-file", type=pathlib.Path, help="a file holding the bearer token the workers and the front require (default: $AORLTA_TOKEN; without either, the workers get a random one and a front must stay on loopback)")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m aorlta_client.ray", description=__doc__.split("\n\n")[0], epilog=USAGE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score", help="score a pool over the cluster's workers")
    _workers_args(s)
    s.add_argument("--pool", required=True, type=pathlib.Path, help="one {task, completion, id} per line")
    s.add_argument("--out", required=True, type=pathlib.Path, help="where the entries go, one per line in pool order")
    s.add_argument("--profile", help="the profile (default: the config's default-profile)")
    v = sub.add_parser("serve", help="keep the workers and an HTTP front until SIGINT or SIGTERM")
    _workers_args(v)
    v.add_argument("--bind", default=None, help="the front's HOST:PORT (default: this node's IP, port 8787)")
    b = sub.add_parser("bench", help="the router's throughput over the cluster's workers")
    _workers_args(b)
    b.add_argument("--pool", required=True, type=pathlib.Path, help="completions to send (each sent with distinct suffixes)")
    b.add_argument("--profile", help="the profile (default: the config's default-profile)")
    b.add_argument("--items", type=int, default=20000, help="items per batch size (default 20000)")
    b.add_argument("--batches", default="256,4096", help="batch sizes, comma-separated (default 256,4096)")
    b.add_argument("--same", action="store_true", help="send the pool's completions as they are (with a store: entries from the store, the router's own cost)")
    return p


def read_pool(path: pathlib.Path) -> List[Dict[str, Any]]:
    """A pool file: one ``{"task", "completion", "id"?}`` object per line; errors name the line
    and the field."""
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the pool: {e.strerror}") from e
    items = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise ValueError(f"{path}:{n}: not JSON: {e}") from e
        if not isinstance(obj, dict):
            raise ValueError(f"{path}:{n}: a pool line is an object with `task` and `completion`")
        if "task" not in obj:
            raise ValueError(f"{path}:{n}: field `task` is missing")
        if not isinstance(obj.get("completion"), str):
            raise ValueError(f"{path}:{n}: field `completion` is missing or not a string")
        item = {"task": obj["task"], "completion": obj["completion"]}
        if obj.get("id") is not None:
            item["id"] = str(obj["id"])
        items.append(item)
    if not items:
        raise ValueError(f"{path}: the pool has no lines")
    return items


class _Progress:
    """A progress line on stderr at most once a second, and one at the end."""

    def __init__(self, router: Any, label: str):
        self.router = router
        self.label = label
        self.t0 = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 1.0:
            return
        self.last = now
        live = len(self.router.live())
        rate = done / max(now - self.t0, 1e-9)
        print(f"{self.label}: {done}/{total} entries ({100.0 * done / total:.1f}%), {rate:.0f} entries/s, "
              f"{live} of {len(self.router.workers)} workers live", file=sys.stderr, flush=True)


def _env(pairs: Sequence[str]) -> Dict[str, str]:
    env = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k:
            raise ValueError(f"--env {p!r}: expected KEY=VALUE")
        env[k] = v
    return env


def _token(args: argparse.Namespace) -> Optional[str]:
    """The bearer token from ``--token-file``, else ``$AORLTA_TOKEN``, else None."""
    if args.token_file is not None:
        try:
            token: str = args.token_file.read_text().strip()
        except OSError as e:
            raise ValueError(f"--token-file {args.token_file}: {e.strerror}") from e
        if not token:
            raise ValueError(f"--token-file {args.token_file}: the file is empty")
        return token
    return os.environ.get("AORLTA_TOKEN", "").strip() or None


def _start(args: argparse.Namespace, front: bool, front_host: Optional[str] = None, front_port: int = 0) -> Any:
    import ray

    import aorlta_client.ray as ar
    from aorlta_client.front import is_loopback

    token = _token(args)
    if front and token is None and not (front_host and is_loopback(front_host)):
        where = front_host or "this node's address"
        raise ValueError(
            f"the front would listen on {where} without a token: set AORLTA_TOKEN or --token-file "
            "(trainers send the same token), or --bind 127.0.0.1:PORT"
        )

    if not ray.is_initialized():
        if args.address.startswith("local:"):
            _local_cluster(args.address)
        else:
            ray.init(address=None if args.address == "local" else args.address)
    print(f"starting one aorlta serve per node of {args.address} ...", file=sys.stderr, flush=True)
    return ar.start(
        args.config, cache=args.cache, binary=args.binary, fake_gpu=args.fake_gpu, resource=args.resource,
        gpus_per_node=args.gpus_per_node, nodes=args.nodes, cpu_nodes=args.cpu_nodes, num_cpus=args.num_cpus,
        bind_host=args.bind_host, front=front, front_host=front_host, front_port=front_port, env=_env(args.env),
        start_timeout=args.start_timeout, qa_chunk=args.qa_chunk, kernel_chunk=args.kernel_chunk,
        connections=args.connections, balance=args.balance, token=token,
    )


_CLUSTER: List[Any] = []


def _local_cluster(address: str) -> None:
    """``local:N``: a head without GPUs and N nodes with one ``fake_gpu`` each, on this machine
    (stopped when the command ends)."""
    import atexit

    import ray
    from ray.cluster_utils import Cluster

    n = address.partition(":")[2]
    if not n.isdigit() or int(n) < 1:
        raise ValueError(f"--address {address!r}: expected local:N with N >= 1")
    # The nodes' workers import this package from where this process found it.
    here = str(pathlib.Path(__file__).resolve().parents[2])
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(int(n)):
        c.add_node(num_cpus=1, resources={"fake_gpu": 1})
    ray.init(address=c.address)
    c.wait_for_nodes()
    _CLUSTER.append(c)
    atexit.register(lambda: (ray.shutdown(), c.shutdown()))


def entries_summary(entries: List[Dict[str, Any]]) -> str:
    """Counts, mean reward, entries served from the store, and the unscored entries' reasons."""
    scored = [e for e in entries if e.get("scored")]
    cached = sum(1 for e in entries if e.get("legs") and all(l.get("cached") for l in e["legs"]))
    mean = sum(e["reward"] for e in scored) / len(scored) if scored else float("nan")
    reasons: Dict[str, int] = {}
    for e in entries:
        if not e.get("scored"):
            for r in e.get("reasons") or [{"code": "unsettled-leg"}]:
                reasons[r.get("code", "?")] = reasons.get(r.get("code", "?"), 0) + 1
    line = _table(
        ["COUNT", "SCORED", "UNSCORED", "MEAN REWARD", "FROM STORE"],
        [[len(entries), len(scored), len(entries) - len(scored), f"{mean:.4f}", cached]],
    )
    if reasons:
        line += "\n\n" + _table(["UNSCORED REASON", "COUNT"], sorted(reasons.items(), key=lambda kv: -kv[1]))
    return line


def cmd_score(args: argparse.Namespace) -> int:
    items = read_pool(args.pool)
    svc = _start(args, front=False)
    try:
        t0 = time.monotonic()
        entries = svc.score(items, args.profile, _Progress(svc.router, "aorlta ray score"))
        wall = time.monotonic() - t0
        counters = svc.router.cache_counters()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_name(args.out.name + ".part")
        with open(tmp, "w") as f:
            for e in entries:
                f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
        os.replace(tmp, args.out)
        print(f"aorlta ray score: {args.pool}, {len(entries)} entries in {wall:.2f} s "
              f"({len(entries) / max(wall, 1e-9):.0f} entries/s) over {len(svc.router.workers)} workers")
        print(workers_table(svc, counters))
        print()
        print(entries_summary(entries))
        print(f"wrote {args.out}")
    finally:
        svc.shutdown()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import ray

    host, port = None, 8787
    if args.bind:
        h, _, p = args.bind.rpartition(":")
        if not h or not p.isdigit():
            raise ValueError(f"--bind {args.bind!r}: expected HOST:PORT")
        host, port = h, int(p)
    svc = _start(args, front=True, front_host=host or None, front_port=port)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(workers_table(svc))
    print(f"router listening on {svc.url} (POST /v1/score, /get_reward; GET /healthz, /v1/tasks, /v1/profiles)", flush=True)
    try:
        while not stop.wait(5.0):
            if not svc.router.live():
                print("every worker is dead; stopping", file=sys.stderr)
                return 1
    finally:
        svc.shutdown()
        ray.shutdown()
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from aorlta_client.ray.bench import run_bench

    svc = _start(args, front=False)
    try:
        print(run_bench(svc, read_pool(args.pool), args.profile, [int(b) for b in args.batches.split(",")], args.items, args.same))
    finally:
        svc.shutdown()
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"score": cmd_score, "serve": cmd_serve, "bench": cmd_bench}[args.command](args)
    except (ValueError, RuntimeError, AorltaError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if isinstance(e, ValueError) else 1
