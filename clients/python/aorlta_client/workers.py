"""One ``aorlta serve`` as the router sees it: where it is, how many GPUs it leases, whether it
still lives, and what it answered (:class:`Worker`)."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Dict, Mapping, Optional

from aorlta_client.client import AorltaError, Client

log = logging.getLogger("aorlta_client.router")

KERNEL, QA = "kernel", "qa"


class Worker:
    """One ``aorlta serve`` the router sends to.

    ``url`` is its base URL; ``key`` names it for the rendezvous order (the node's host name:
    the same key finds the same node again); ``gpus`` how many GPUs its kernel lane leases (0:
    Q&A only); ``alive`` a liveness check (a Ray actor's answer; ``/healthz`` when ``None``);
    ``info`` what its starter reported (host, node, pid ...); ``token`` its bearer token
    (``$AORLTA_TOKEN`` when ``None``).
    """

    def __init__(
        self,
        url: str,
        *,
        key: Optional[str] = None,
        gpus: int = 0,
        alive: Optional[Callable[[], bool]] = None,
        info: Optional[Mapping[str, Any]] = None,
        retry_budget: float = 3.0,
        token: Optional[str] = None,
    ):
        self.url = url.rstrip("/")
        self.key = key or self.url
        self.gpus = int(gpus)
        self.info = dict(info or {})
        self._alive = alive
        # Transport failures are retried briefly (a dead worker is found in seconds); a 503 past
        # the budget is raised and retried by the router, the worker being alive.
        self._token = token
        self.client = Client(self.url, retry_budget=retry_budget, on_unreachable="raise", token=token)
        self._probe = Client(self.url, retries=0, timeout=5.0, token=token)
        self.dead = False
        self.dead_reason = ""
        self.entries = 0
        self.kernel_entries = 0
        self.requests = 0
        self.failures = 0
        self.streak = 0
        self._room = (float("-inf"), 0)
        self.probed = float("-inf")

    def new_client(self, **options: Any) -> Client:
        """A :class:`Client` of this worker with its token and ``options``."""
        return Client(self.url, token=self._token, **options)

    def is_alive(self) -> bool:
        """Whether the worker still runs: its liveness check, else ``GET /healthz``."""
        if self._alive is not None:
            try:
                return bool(self._alive())
            except Exception as e:  # a dead actor raises; so does an unreachable node
                log.debug("%s: liveness check failed: %r", self.key, e)
                return False
        try:
            self._probe.health()
            return True
        except (AorltaError, OSError, ValueError):
            return False

    def health(self) -> Dict[str, Any]:
        """``GET /healthz`` (raises :class:`AorltaError` when unreachable)."""
        return self._probe.health()

    def kernel_room(self, max_age: float = 1.0) -> int:
        """The free places of the kernel lane (``queue-items`` less ``queue_depth``), as
        ``/healthz`` said at most ``max_age`` seconds ago; 0 when it does not answer."""
        now = time.monotonic()
        if now - self._room[0] > max_age:
            try:
                h = self.health()
                room = int(h["queue_items"].get(KERNEL, 0)) - int(h["queue_depth"].get(KERNEL, 0))
            except (AorltaError, KeyError, TypeError, ValueError):
                room = 0  # busy or gone: the first request will tell
            self._room = (now, room)
        return self._room[1]

    def row(self) -> Dict[str, Any]:
        """What the summary table shows of this worker."""
        return {
            "key": self.key,
            "url": self.url,
            "gpus": self.gpus,
            "state": "dead" if self.dead else "live",
            "dead_reason": self.dead_reason,
            "entries": self.entries,
            "kernel_entries": self.kernel_entries,
            "requests": self.requests,
            "failures": self.failures,
            **{k: v for k, v in self.info.items() if k in ("host", "node_id", "node_ip", "pid")},
        }
