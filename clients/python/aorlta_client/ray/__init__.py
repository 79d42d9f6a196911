"""AORLTA on a Ray cluster: one ``aorlta serve`` per node, a router in front (``pip install
'aorlta-client[ray]'``; docs/SCALING.md).

- :func:`start` places one :class:`~aorlta_client.ray.worker.AorltaWorker` actor on every alive
  node that has the resource (``num_gpus`` = the GPUs it gives AORLTA; a custom resource such as
  ``fake_gpu`` for the fake device), each running ``aorlta serve`` over the same config and the
  same shared store (``cache=``: a ``postgres://`` URL for several hosts, or a SQLite file that
  every process of one host opens), and answers a :class:`Service`: a
  :class:`~aorlta_client.router.Router` over the workers (``score``) and, unless
  ``front=False``, an HTTP front with the service's routes whose ``url`` the verl and OpenRLHF
  drop-ins take (``AORLTA_URL``, ``reward_kwargs.url``, ``--reward.remote_url URL/get_reward``).
- ``python -m aorlta_client.ray score|serve|bench`` does the same from a shell
  (:mod:`aorlta_client.ray.cli`).
- The workers listen on their nodes' addresses, so every one requires a bearer token: the
  ``token`` given, else ``$AORLTA_TOKEN``, else a fresh random one that only the router knows.
  The front requires the given token (``Service.token``; its clients send it from
  ``$AORLTA_TOKEN``); without one it must listen on loopback.

The actors live as long as the process that called :func:`start` (or until
:meth:`Service.shutdown`); every node needs the ``aorlta`` executable (``binary=``,
``$AORLTA_BIN`` or PATH) and this package, and sees the config's task and profile files at the
same absolute paths (one checkout per node at the same place, or a shared file system).
"""

from __future__ import annotations

import logging
import os
import pathlib
import secrets
from typing import Any, Dict, Iterable, List, Mapping, Optional

try:
    import ray
    import yaml
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
except ImportError as e:  # the extra is not installed: say which one
    raise ImportError(
        f"aorlta_client.ray needs Ray and PyYAML ({e.name or e} is missing): "
        "pip install 'aorlta-client[ray]'"
    ) from e

from aorlta_client.client import Item
from aorlta_client.front import Front, is_loopback, serve_front
from aorlta_client.router import Progress, Router, Worker
from aorlta_client.ray.worker import AorltaWorker, CacheSpec

__all__ = ["Service", "read_config", "start", "AorltaWorker"]

log = logging.getLogger("aorlta_client.ray")

#: Keys of a service config that hold paths (relative to the config file), per section.
_PATHS = {
    (): ("tasks", "profiles", "work-dir"),
    ("cache",): ("path",),
    ("inline-tasks",): ("kernel-reference-dir",),
    ("auth",): ("token-file",),
    ("kernel",): ("nvcc", "hipcc", "harness", "lease-dir", "work-dir"),
}


def read_config(path: "os.PathLike[str] | str") -> Dict[str, Any]:
    """A service config (docs/OPERATIONS.md, Configuration) with every path made absolute against its folder, so
    that a node can write it elsewhere. Errors name the file (and the line, for YAML errors);
    the service itself checks the keys when each node starts."""
    path = pathlib.Path(path).expanduser().resolve()
    try:
        text = path.read_text()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the service config: {e.strerror}") from e
    try:
        cfg = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path}{where}: not YAML: {getattr(e, 'problem', e)}") from e
    if not isinstance(cfg, dict):
        raise ValueError(f"{path}: a service config is a mapping of keys (tasks, profiles, ...)")
    for section, keys in _PATHS.items():
        node: Any = cfg
        for s in section:
            node = node.get(s) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        for k in keys:
            v = node.get(k)
            if isinstance(v, str):
                node[k] = str((path.parent / v).resolve())
            elif isinstance(v, list):
                node[k] = [str((path.parent / x).resolve()) if isinstance(x, str) else x for x in v]
    return cfg


def _alive_check(actor: Any) -> Any:
    def alive() -> bool:
        return bool(ray.get(actor.alive.remote(), timeout=10))

    return alive


class Service:
    """Workers started by :func:`start`: ``router``, ``url`` (the HTTP front; ``None`` without
    one), ``token`` (the bearer token the front requires; ``None``: it asks for none, on
    loopback), ``workers`` (each node's report), ``actors``. Use as a context manager or call
    :meth:`shutdown`."""

    def __init__(
        self,
        actors: List[Any],
        infos: List[Dict[str, Any]],
        router: Router,
        front: Optional[Front],
        token: Optional[str],
    ):
        self.actors = actors
        self.workers = infos
        self.router = router
        self.front = front
        self.url = front.url if front else None
        self.token = token

    def __repr__(self) -> str:  # never shows the token
        return f"Service({len(self.actors)} workers, front {self.url})"

    def score(self, items: Iterable[Item], profile: Optional[str] = None, progress: Optional[Progress] = None) -> List[Dict[str, Any]]:
        """One reward entry per item, in order (:meth:`Router.score`)."""
        return self.router.score(items, profile, progress)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stops the front, drains every live worker (SIGTERM) and ends its actor."""
        if self.front is not None:
            self.front.close()
            self.front = None
        stops = []
        for a in self.actors:
            try:
                stops.append(a.stop.remote(timeout))
            except Exception:  # already dead
                pass
        for s in stops:
            try:
                ray.get(s, timeout=timeout + 10)
            except Exception:  # a dead actor has nothing to drain
                pass
        for a in self.actors:
            ray.kill(a)
        self.actors = []

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


def _keys(nodes: List[Dict[str, Any]]) -> List[str]:
    """Rendezvous keys: the host name, with the node's id when hosts repeat (fake nodes of one
    machine)."""
    hosts = [n.get("NodeManagerHostname") or n["NodeManagerAddress"] for n in nodes]
    return [h if hosts.count(h) == 1 else f"{h}/{n['NodeID'][:12]}" for h, n in zip(hosts, nodes)]


def start(
    config: "os.PathLike[str] | str",
    *,
    cache: CacheSpec = None,
    binary: Optional[str] = None,
    fake_gpu: bool = False,
    resource: Optional[str] = None,
    gpus_per_node: Optional[int] = None,
    nodes: Optional[int] = None,
    cpu_nodes: bool = False,
    num_cpus: float = 0,
    bind_host: Optional[str] = None,
    front: bool = True,
    front_host: Optional[str] = None,
    front_port: int = 0,
    env: Optional[Mapping[str, str]] = None,
    address: Optional[str] = None,
    start_timeout: float = 180.0,
    qa_chunk: int = 256,
    kernel_chunk: int = 8,
    connections: int = 4,
    balance: float = 0.1,
    token: Optional[str] = None,
) -> Service:
    """Starts one ``aorlta serve`` per node of the Ray cluster and a router over them.

    - ``config``: the service config every node runs (docs/OPERATIONS.md, Configuration), e.g.
      ``configs/serve-kernels.yaml``.
    - ``cache``: the shared store: ``postgres://user@host/db`` across hosts, a SQLite file on
      one host, or ``None`` for the config's own ``cache``.
    - ``resource``: the Ray resource that marks a node for AORLTA and counts its GPUs (``GPU``;
      ``fake_gpu`` when ``fake_gpu``); ``gpus_per_node``: how many of a node's to take (all by
      default; fewer leaves the rest to the trainer); ``nodes``: at most this many nodes;
      ``cpu_nodes``: also a Q&A-only worker on nodes without the resource.
    - ``num_cpus``: CPUs each actor reserves from Ray (0: the service's lanes decide its threads).
    - ``bind_host``: the workers listen on their node's IP (the router reaches them from
      another node); ``front``/``front_host``/``front_port``: the HTTP front, on this node's IP
      and a free port by default.
    - ``binary``: the ``aorlta`` executable on the nodes (else ``$AORLTA_BIN``, else PATH);
      ``env``: extra environment for the services (``AORLTA_NVCC``, ``RUST_LOG`` ...).
    - ``address``: the cluster to join when Ray is not initialised yet (``auto``, ``ray://…``).
    - ``qa_chunk``, ``kernel_chunk``, ``connections``, ``balance``: the router's request sizes,
      requests in flight per worker, and how far over its share of a batch's kernel items a
      worker may go (:class:`~aorlta_client.router.Router`).
    - ``token``: the bearer token of the workers and the front (else ``$AORLTA_TOKEN``). Without
      one the workers get a fresh random one, known to the router only, and the front must
      listen on loopback (ValueError otherwise, before any worker starts).
    """
    if not ray.is_initialized():
        ray.init(address=address)
    given = (token or os.environ.get("AORLTA_TOKEN", "")).strip() or None
    front_host = front_host or ray.util.get_node_ip_address()
    if front and given is None and not is_loopback(front_host):
        raise ValueError(
            f"the front would listen on {front_host} without a token: pass token= or set AORLTA_TOKEN "
            "(its clients send the same), or front_host='127.0.0.1'"
        )
    token = given or secrets.token_urlsafe(32)
    base = read_config(config)
    # Paths named here are this process's: made absolute before they travel to the nodes.
    if cache is not None and not isinstance(cache, Mapping):
        text = os.fspath(cache)
        if not text.startswith(("postgres://", "postgresql://")):
            cache = str(pathlib.Path(text).expanduser().resolve())
    if binary and os.sep in binary and not os.path.isabs(binary):
        binary = str(pathlib.Path(binary).resolve())
    res = resource or ("fake_gpu" if fake_gpu else "GPU")
    alive = sorted((n for n in ray.nodes() if n.get("Alive")), key=lambda n: n["NodeID"])
    chosen = []
    for n in alive:
        have = float(n.get("Resources", {}).get(res, 0))
        if have >= 1:
            k = int(have) if gpus_per_node is None else gpus_per_node
            if k > have:
                raise ValueError(f"gpus_per_node={k}, but node {n['NodeManagerAddress']} has {have:g} {res}")
            chosen.append((n, k))
        elif cpu_nodes:
            chosen.append((n, 0))
    if nodes is not None:
        chosen = chosen[:nodes]
    if not chosen:
        seen = ", ".join(f"{n['NodeManagerAddress']} {dict(n.get('Resources', {}))}" for n in alive)
        raise RuntimeError(f"no alive Ray node has the resource {res!r} (nodes: {seen or 'none'})")
    keys = _keys([n for n, _ in chosen])
    actors = []
    for (n, k), key in zip(chosen, keys):
        opts: Dict[str, Any] = {
            "num_cpus": num_cpus,
            "max_concurrency": 8,
            "scheduling_strategy": NodeAffinitySchedulingStrategy(n["NodeID"], soft=False),
        }
        if k and res == "GPU":
            opts["num_gpus"] = k
        elif k:
            opts["resources"] = {res: k}
        actor = ray.remote(AorltaWorker).options(**opts).remote(
            base, str(config), cache=cache, binary=binary, gpus=k, fake_gpu=fake_gpu,
            bind_host=bind_host or n["NodeManagerAddress"], key=key.replace("/", "-"), env=env,
            ready_timeout=start_timeout, token=token,
        )
        actors.append(actor)
    try:
        infos = ray.get([a.start.remote() for a in actors], timeout=start_timeout)
    except BaseException:
        for a in actors:
            ray.kill(a)
        raise
    for info, (n, _), key in zip(infos, chosen, keys):
        info["node_id"], info["node_ip"], info["key"] = n["NodeID"], n["NodeManagerAddress"], key
    workers = [
        Worker(i["url"], key=i["key"], gpus=i["gpus"], alive=_alive_check(a), info=i, token=token)
        for i, a in zip(infos, actors)
    ]
    router = Router(workers, qa_chunk=qa_chunk, kernel_chunk=kernel_chunk, connections=connections, balance=balance)
    # Read once while every worker lives: the lanes of task ids, and each profile's stand-in for
    # OpenRLHF's answers when no worker is left.
    router.kinds()
    router.profiles()
    fr = None
    if front:
        fr = serve_front(router, front_host, front_port, token=given)
    log.info("aorlta: %d workers (%s)%s", len(workers), ", ".join(w.key for w in workers), f", front {fr.url}" if fr else "")
    return Service(actors, infos, router, fr, given)
