"""The router's HTTP front: the routes of one ``aorlta serve`` (``POST /v1/score``, ``POST
/get_reward``, ``GET /v1/tasks``, ``/v1/profiles``, ``/healthz``) answered by a
:class:`~aorlta_client.router.Router` over several, so the trainer drop-ins take its URL in place
of one service's. Standard library only (``http.server``, one thread per connection).

Like the service, the front asks for a bearer token (``Authorization: Bearer TOKEN``, or the
token as the password of Basic authentication, which is what a URL ``http://aorlta:TOKEN@HOST``
sends) on every route but ``/healthz`` when it has one, compares it in constant time, never logs
it, and refuses to listen beyond loopback without one."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import ipaddress
import json
import logging
import socket
import threading
import urllib.parse
from typing import Any, Dict, List, Mapping, Optional, Tuple

from aorlta_client.client import AorltaError
from aorlta_client.router import KERNEL, Router

log = logging.getLogger("aorlta_client.front")


def health(router: Router) -> Dict[str, Any]:
    """The front's ``/healthz``: every worker's state and its own ``/healthz``, and over the
    live ones the summed queue depths and sizes, the longest item time limit and queue wait
    (what the clients read to size their time-outs)."""
    rows: List[Dict[str, Any]] = []
    depth: Dict[str, float] = {}
    size: Dict[str, float] = {}
    timeouts: Dict[str, float] = {}
    wait, version, tasks, profiles = 0.0, None, 0, []
    for w in router.workers:
        row = w.row()
        if not w.dead:
            try:
                h = w.health()
            except AorltaError as e:
                row["state"], row["error"] = "unreachable", e.message
            else:
                for lane, d in h.get("queue_depth", {}).items():
                    depth[lane] = depth.get(lane, 0) + d
                for lane, d in h.get("queue_items", {}).items():
                    size[lane] = size.get(lane, 0) + d
                for lane, t in h.get("item_timeout_s", {}).items():
                    timeouts[lane] = max(timeouts.get(lane, 0.0), t)
                wait = max(wait, h.get("queue_wait_s", 0.0))
                version, tasks, profiles = h.get("version"), h.get("tasks", 0), h.get("profiles", [])
                row["queue_depth"] = h.get("queue_depth", {})
        rows.append(row)
    live = sum(1 for r in rows if r["state"] == "live")
    return {
        "status": "ok" if live == len(rows) else ("degraded" if live else "no-worker"),
        "router": True,
        "version": version,
        "tasks": tasks,
        "profiles": profiles,
        "live_workers": live,
        "workers": rows,
        "queue_depth": depth,
        "queue_items": size,
        "item_timeout_s": timeouts,
        "queue_wait_s": wait,
    }


def forward(router: Router, method: str, path: str, body: Any = None, kernel: bool = False) -> Tuple[int, bytes]:
    """Sends one request to a live worker (one with GPUs when ``kernel``), the next on a
    connection failure; answers ``(status, body)``. ``(503, …no-worker…)`` when none answers."""
    order = router.rotated(router.live(gpu=kernel))
    for w in order:
        try:
            status, _, payload = w.client.request(method, path, body)
            return status, payload
        except AorltaError as e:
            w.failures += 1
            if not w.is_alive():
                router.retire(w, f"{method} {path}: {e.message}")
    msg = {"error": {"code": "no-worker", "message": "no live worker can answer", "status": 503}}
    return 503, json.dumps(msg).encode()

def get_reward(router: Router, body: Mapping[str, Any], query: str = "") -> Tuple[int, bytes]:
    """``POST /get_reward`` (OpenRLHF's shape) on a live worker (one with GPUs when a label
    names a kernel task). With no live worker, every sample is answered unscored: its reward
    is the profile's ``unscored-value`` (the stand-in the service itself gives, which
    OpenRLHF needs as a number) and ``extra_logs.unscored`` is 1.0."""
    labels = body.get("labels") if isinstance(body, Mapping) else None
    kinds = router.kinds()
    kernel = isinstance(labels, list) and any(isinstance(x, str) and kinds.get(x) == KERNEL for x in labels)
    path = "/get_reward" + (f"?{query}" if query else "")
    status, payload = forward(router, "POST", path, body, kernel=kernel)
    if status != 503 or b'"no-worker"' not in payload or not isinstance(labels, list):
        return status, payload
    profiles = router.profiles()
    name = urllib.parse.parse_qs(query).get("profile", [profiles.get("default")])[0]
    spec = next((p["profile"] for p in profiles.get("profiles", []) if p["name"] == name), None)
    if spec is None:
        return status, payload  # never reached a worker: no stand-in is known
    n = len(labels)
    stand_in = float(spec.get("unscored-value", 0.0))
    answer = {
        "rewards": [stand_in] * n,
        "scores": [0.0] * n,
        "extra_logs": {"scored": [0.0] * n, "timed_out": [0.0] * n, "unscored": [1.0] * n},
    }
    return 200, json.dumps(answer).encode()


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is only reachable from this machine."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_FrontServer"

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("front: " + fmt, *args)

    def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        if status == 503:
            self.send_header("Retry-After", "1")
        self.end_headers()
        self.wfile.write(payload)

    def _error(self, status: int, code: str, message: str) -> None:
        self._send(status, json.dumps({"error": {"code": code, "message": message, "status": status}}).encode())

    def _authorized(self) -> bool:
        """Whether the request carries the front's token (always, without one); a 401 when not.
        The request's body is not read: the answer closes the connection."""
        token = self.server.token
        if token is None:
            return True
        scheme, _, presented = (self.headers.get("Authorization") or "").partition(" ")
        presented = presented.strip()
        if scheme.lower() == "basic":
            # A token in the URL (OpenRLHF's remote reward URL http://aorlta:TOKEN@HOST/...)
            # arrives as Basic authentication: the token is the password.
            try:
                presented = base64.b64decode(presented, validate=True).decode().partition(":")[2]
            except (ValueError, UnicodeDecodeError):
                presented = ""
        elif scheme.lower() != "bearer":
            presented = ""
        # Hashes of equal length compared in constant time: neither the token nor its length shows.
        seen = hashlib.sha256(presented.encode()).digest()
        if presented and hmac.compare_digest(seen, token):
            return True
        self.close_connection = True
        why = "the bearer token is not this front's" if presented else "this front needs `Authorization: Bearer TOKEN`"
        payload = json.dumps({"error": {"code": "unauthorized", "message": why, "status": 401}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("WWW-Authenticate", "Bearer")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        return False

    def _body(self) -> Optional[Any]:
        n = int(self.headers.get("Content-Length") or 0)
        if n > self.server.max_body:
            self._error(413, "body-too-large", f"the body is {n} bytes, more than {self.server.max_body}")
            self.close_connection = True
            return None
        raw = self.rfile.read(n)
        try:
            return json.loads(raw)
        except ValueError as e:
            self._error(400, "malformed-json", str(e))
            return None

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        router = self.server.router
        if path == "/healthz":
            h = health(router)
            self._send(200 if h["live_workers"] else 503, json.dumps(h).encode())
        elif not self._authorized():
            return
        elif path in ("/v1/tasks", "/v1/profiles"):
            self._send(*forward(router, "GET", path))
        else:
            self._error(404, "not-found", f"no route GET {path} on the router (it serves /v1/score, /get_reward, /v1/tasks, /v1/profiles, /healthz)")

    def do_POST(self) -> None:
        path, _, query = self.path.partition("?")
        router = self.server.router
        if not self._authorized():
            return
        if path not in ("/v1/score", "/get_reward"):
            self._error(404, "not-found", f"no route POST {path} on the router")
            return
        body = self._body()
        if body is None:
            return
        if path == "/get_reward":
            self._send(*get_reward(router, body, query))
            return
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            self._error(422, "invalid-request", "the body is an object with an `items` array")
            return
        for n, it in enumerate(body["items"]):
            if not isinstance(it, dict) or "task" not in it or not isinstance(it.get("completion"), str):
                self._error(422, "invalid-request", f"field `items[{n}]`: an object with `task` and a string `completion`")
                return
        try:
            entries = router.score(body["items"], body.get("profile"))
        except AorltaError as e:
            self._error(e.status or 502, e.code, e.message)
            return
        self._send(200, json.dumps({"results": entries}).encode())


class _FrontServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(self, addr: Tuple[str, int], router: Router, max_body: int, token: Optional[str]):
        super().__init__(addr, _Handler)
        self.router = router
        self.max_body = max_body
        self.token = hashlib.sha256(token.encode()).digest() if token else None


class Front:
    """A running HTTP front: ``url``, ``close()``."""

    def __init__(self, server: _FrontServer, thread: threading.Thread):
        self._server = server
        self._thread = thread
        host, port = server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        self.url = f"http://{name}:{port}"

    def close(self) -> None:
        """Stops listening and waits for the serving thread."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def serve_front(
    router: Router, host: str = "127.0.0.1", port: int = 0, max_body: int = 64 << 20, token: Optional[str] = None
) -> Front:
    """Serves ``router`` over HTTP on ``host:port`` (0: a free port) in a background thread:
    ``POST /v1/score``, ``POST /get_reward``, ``GET /v1/tasks``, ``/v1/profiles`` and
    ``/healthz`` (every worker's state; 503 when none lives). With ``token``, every route but
    ``/healthz`` requires it (``Authorization: Bearer TOKEN``); without one, ``host`` must be a
    loopback address (ValueError otherwise)."""
    token = (token or "").strip() or None
    if token is None and not is_loopback(host):
        raise ValueError(
            f"refusing to serve the front on {host} without a token: an address other than loopback can be "
            "reached from other hosts. Pass token= (or set AORLTA_TOKEN), or use 127.0.0.1"
        )
    server = _FrontServer((host, port), router, max_body, token)
    thread = threading.Thread(target=server.serve_forever, name="aorlta-front", daemon=True)
    thread.start()
    return Front(server, thread)
