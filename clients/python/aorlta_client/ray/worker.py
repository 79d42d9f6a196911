"""One ``aorlta serve`` per node, run by a Ray actor.

:class:`AorltaWorker` is the actor's class (``start`` wraps it with ``ray.remote`` and the node's
resources): it writes the node's service config (the shared config with this node's cache,
GPUs, bind address and folders), starts ``aorlta serve`` as a child process on a free port,
waits for ``/healthz``, and reports its URL, lanes and GPUs. The child dies with the actor: it
is started with the parent-death signal (``PR_SET_PDEATHSIG``, SIGKILL) from a thread that lives
as long as the child, so ``ray.kill``, a crashed actor or a lost driver all end it; ``stop``
drains it with SIGTERM. Nothing here imports ``ray``: the class runs inside the actor.
"""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from aorlta_client.client import AorltaError, Client

PR_SET_PDEATHSIG = 1

#: How the shared store is named: ``None`` (the config's own ``cache``), a ``postgres://`` URL
#: (written ``cache: <url>``), a SQLite file path, or a ``cache`` mapping written as it is.
CacheSpec = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def cache_section(cache: CacheSpec) -> Optional[Any]:
    """The ``cache`` value of a node's service config for ``cache`` (``None``: keep the config's)."""
    if cache is None:
        return None
    if isinstance(cache, Mapping):
        return dict(cache)
    text = os.fspath(cache)
    if text.startswith(("postgres://", "postgresql://")):
        return text
    return {"kind": "sqlite", "path": str(pathlib.Path(text).expanduser().resolve())}


def node_config(
    base: Mapping[str, Any],
    *,
    cache: CacheSpec,
    gpus: int,
    fake_gpu: bool,
    folder: pathlib.Path,
    key: str,
) -> Dict[str, Any]:
    """A node's service config: ``base`` (paths already absolute) with this node's ``cache``,
    ``gpus`` (``all``: the GPUs Ray gave the actor, through ``CUDA_VISIBLE_DEVICES``; ``[0 …
    n-1]`` on the fake device; ``none`` for a Q&A-only node), its own work folder and, on the
    fake device, its own lease folder (fake "nodes" on one host must not share fake GPU 0)."""
    cfg = {k: v for k, v in base.items() if k != "bind"}
    section = cache_section(cache)
    if section is not None:
        cfg["cache"] = section
    kernel = dict(cfg.get("kernel") or {})
    if fake_gpu:
        kernel["fake-gpu"] = True
        kernel["lease-dir"] = str(folder / "leases")
        cfg["gpus"] = list(range(gpus)) if gpus else "none"
    else:
        cfg["gpus"] = "all" if gpus else "none"
    if kernel or fake_gpu:
        cfg["kernel"] = kernel
    if cfg.get("work-dir"):
        cfg["work-dir"] = str(pathlib.Path(cfg["work-dir"]) / f"node-{key}")
    else:
        cfg["work-dir"] = str(folder / "work")
    return cfg


def _binary(binary: Optional[str]) -> str:
    """The ``aorlta`` executable on this node: ``binary``, else ``$AORLTA_BIN``, else on PATH."""
    b = binary or os.environ.get("AORLTA_BIN") or shutil.which("aorlta")
    if not b or not os.path.isfile(b):
        raise RuntimeError(
            f"no aorlta executable on {socket.gethostname()}: pass binary=, set AORLTA_BIN or put it on PATH (looked for {b or 'aorlta'})"
        )
    return b


def _die_with_parent(parent: int) -> Callable[[], None]:
    """``preexec_fn`` of the child: SIGKILL when the thread that started it ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


class AorltaWorker:
    """The actor: one ``aorlta serve`` on this node.

    ``config`` is the shared service config (a mapping whose paths are absolute, as
    :func:`aorlta_client.ray.read_config` gives it) and ``origin`` the file it came from (for
    messages); ``cache`` the shared store (:data:`CacheSpec`); ``gpus`` the GPUs this node gives
    (0: Q&A only); ``fake_gpu`` runs kernels on the fake device; ``bind_host`` the address to
    listen on (the node's IP by default, so the router on another node reaches it); ``folder``
    where the node's config, logs and scratch go (a fresh temporary folder by default);
    ``env`` extra environment for the child; ``ready_timeout`` seconds to wait for it;
    ``token`` the bearer token the service requires (given to it as ``AORLTA_TOKEN``; a service
    that listens beyond loopback refuses to start without one).
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        origin: str,
        *,
        cache: CacheSpec = None,
        binary: Optional[str] = None,
        gpus: int = 0,
        fake_gpu: bool = False,
        bind_host: Optional[str] = None,
        folder: Optional[str] = None,
        key: str = "node",
        env: Optional[Mapping[str, str]] = None,
        ready_timeout: float = 120.0,
        token: Optional[str] = None,
    ):
        self.config = dict(config)
        self.origin = origin
        self.cache = cache
        self.binary = binary
        self.gpus = int(gpus)
        self.fake_gpu = fake_gpu
        self.bind_host = bind_host
        self.key = key
        self.env = dict(env or {})
        self._token = token
        self.ready_timeout = ready_timeout
        self._own_folder = not folder
        self.folder = pathlib.Path(folder) if folder else pathlib.Path(tempfile.mkdtemp(prefix="aorlta-node-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc: Optional["subprocess.Popen[bytes]"] = None
        self.url: Optional[str] = None
        self._keeper: Optional[threading.Thread] = None
        self._health: Dict[str, Any] = {}

    def _spawn(self, argv: List[str], log: pathlib.Path, env: Dict[str, str], started: threading.Event, box: List[Any]) -> None:
        """Runs in the keeper thread: starts the child and waits for it, so the parent-death
        signal (tied to the starting thread) fires only when the actor's process ends."""
        try:
            with open(log, "ab") as out:
                box.append(
                    subprocess.Popen(
                        argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                        preexec_fn=_die_with_parent(os.getpid()),
                    )
                )
        except BaseException as e:  # reported by start()
            box.append(e)
            started.set()
            return
        started.set()
        box[0].wait()

    def start(self) -> Dict[str, Any]:
        """Writes the config, starts ``aorlta serve``, waits until ``/healthz`` answers; returns
        the node's report: ``url``, ``host``, ``pid``, ``gpus``, ``fake_gpu``, ``config``,
        ``log``, ``version``, ``profiles``, ``lanes`` (queue sizes), ``folder``."""
        if self.proc is not None and self.proc.poll() is None:
            return self.info()
        binary = _binary(self.binary)
        cfg = node_config(self.config, cache=self.cache, gpus=self.gpus, fake_gpu=self.fake_gpu, folder=self.folder, key=self.key)
        config = self.folder / "serve.yaml"
        # JSON is YAML; one key per line, so the service's messages name a line and a key.
        config.write_text(json.dumps(cfg, indent=1) + "\n")
        ready = self.folder / "addr"
        if ready.exists():
            ready.unlink()
        log = self.folder / "serve.log"
        host = self.bind_host or "127.0.0.1"
        argv = [binary, "serve", "--config", str(config), "--bind", f"{host}:0", "--ready-file", str(ready)]
        env = {**os.environ, **self.env}
        if self._token:
            env["AORLTA_TOKEN"] = self._token
        started = threading.Event()
        box: List[Any] = []
        self._keeper = threading.Thread(target=self._spawn, args=(argv, log, env, started, box), name="aorlta-serve-keeper", daemon=True)
        self._keeper.start()
        started.wait()
        if isinstance(box[0], BaseException):
            raise RuntimeError(f"{socket.gethostname()}: could not start {binary}: {box[0]}") from box[0]
        self.proc = box[0]
        t0 = time.monotonic()
        while not ready.exists() or not ready.read_text().strip():
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{socket.gethostname()}: aorlta serve exited with {self.proc.returncode} before listening "
                    f"(config {config}, written from {self.origin}):\n{_tail(log)}"
                )
            if time.monotonic() - t0 > self.ready_timeout:
                self.stop()
                raise RuntimeError(f"{socket.gethostname()}: aorlta serve did not listen within {self.ready_timeout:.0f} s:\n{_tail(log)}")
            time.sleep(0.02)
        self.url = "http://" + ready.read_text().strip()
        client = Client(self.url, retries=0, timeout=5.0, token=self._token)
        while True:
            try:
                self._health = client.health()
                break
            except AorltaError as e:
                if time.monotonic() - t0 > self.ready_timeout or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{socket.gethostname()}: /healthz of {self.url} did not answer: {e}\n{_tail(log)}") from e
                time.sleep(0.05)
        return self.info()

    def info(self) -> Dict[str, Any]:
        """The node's report (see :meth:`start`)."""
        h = self._health
        return {
            "url": self.url,
            "host": socket.gethostname(),
            "pid": self.proc.pid if self.proc else None,
            "gpus": self.gpus,
            "fake_gpu": self.fake_gpu,
            "config": str(self.folder / "serve.yaml"),
            "log": str(self.folder / "serve.log"),
            "folder": str(self.folder),
            "version": h.get("version"),
            "profiles": h.get("profiles"),
            "lanes": h.get("queue_items"),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        }

    def alive(self, timeout: float = 3.0) -> bool:
        """Whether the service still runs and answers ``/healthz`` within ``timeout`` seconds
        (a stopped or wedged process is as dead as a gone one)."""
        if self.proc is None or self.proc.poll() is not None or self.url is None:
            return False
        try:
            Client(self.url, retries=0, timeout=timeout, token=self._token).health()
            return True
        except AorltaError:
            return False

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """Drains the service (SIGTERM), kills it after ``timeout`` seconds; its exit code. The
        temporary folder goes with a clean exit (one kept after a failure holds its log)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.returncode == 0 and self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        return self.proc.returncode

    def cpu_seconds(self) -> float:
        """CPU seconds (user and system) the service has used: its own, its finished children's
        (compilers) and its running descendants' (harness processes), from ``/proc``."""
        if self.proc is None:
            return 0.0
        return _tree_cpu(self.proc.pid)

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the service's log."""
        return _tail(self.folder / "serve.log", lines)


def _stat(pid: int) -> Optional[List[str]]:
    try:
        raw = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces: the fields after it follow its last ")".
    return raw[raw.rindex(")") + 2 :].split()


def _tree_cpu(root: int) -> float:
    """utime + stime (+ the reaped children's cutime + cstime) of ``root`` and its descendants."""
    parent: Dict[int, int] = {}
    fields: Dict[int, List[str]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            f = _stat(int(d))
            if f is not None:
                fields[int(d)] = f
                parent[int(d)] = int(f[1])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid, f in fields.items():
        p = pid
        while p not in (root, 0, 1) and p in parent:
            p = parent[p]
        if p == root:
            # Fields 14-17 of stat (utime, stime, cutime, cstime) are 11-14 after the name.
            total += sum(int(x) for x in f[11:15]) / tick
    return total


def _tail(path: pathlib.Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
