"""Synchronous and asyncio clients for the AORLTA reward service.

Both speak HTTP/1.1 with keep-alive using the standard library only (``http.client`` for the
sync client, ``asyncio`` streams for the async one). Both

- split batches larger than ``max_batch`` into several requests (answers keep item order), and
  split a request again when the service says it is larger than its queue (``413
  batch-exceeds-queue``) or its item limit (``413 too-many-items``);
- retry a ``503`` after its ``Retry-After``, and a dropped connection or a time-out after a
  short back-off, for as long as ``retry_budget`` seconds allow;
- wait ``timeout`` seconds for an answer, raised on first use above the service's longest item
  time limit (from ``/healthz``), so a slow item is answered ``timed-out`` by the service rather
  than abandoned by the client;
- raise :class:`AorltaError` with the service's error code on any other refusal, or, with
  ``on_unreachable="unscored"``, answer every item of a request that could not be delivered
  within the budget as unscored (reason ``unreachable``) instead of raising;
- send the service's bearer token (``token=``, else ``$AORLTA_TOKEN``) as ``Authorization:
  Bearer TOKEN`` on every request (a service bound beyond loopback requires one).

:class:`Coalescer` gathers concurrent single-item calls on one event loop into batched
requests (verl awaits one ``compute_score`` per sample).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading
import time
import logging
import urllib.parse
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union, cast

from aorlta_client.types import GetRewardAnswer, RewardEntry

DEFAULT_URL = "http://127.0.0.1:8787"

log = logging.getLogger("aorlta_client")

#: An item: a mapping with ``task`` (an id or an inline task) and ``completion`` (and
#: optionally ``id``), or a ``(task, completion)`` pair.
Item = Union[Mapping[str, Any], Tuple[Any, str]]


#: The environment variable that holds the service's bearer token.
TOKEN_VAR = "AORLTA_TOKEN"


def default_url() -> str:
    """The service URL: ``$AORLTA_URL``, else ``http://127.0.0.1:8787``."""
    return os.environ.get("AORLTA_URL", DEFAULT_URL)


def default_token() -> Optional[str]:
    """The bearer token: ``$AORLTA_TOKEN`` (surrounding white space removed), else None."""
    t = os.environ.get(TOKEN_VAR, "").strip()
    return t or None


class AorltaError(Exception):
    """The service refused a request (or could not be reached).

    ``status`` is the HTTP status (0 when no answer came), ``code`` the service's kebab-case
    error code (``malformed-json``, ``too-many-items``, ``overloaded`` ...).
    """

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _items(items: Iterable[Item]) -> List[Dict[str, Any]]:
    """Request items; an item without an id gets the service's default, ``<task>#<index>``
    with its index in the whole batch, so splitting a batch does not change ids."""
    out = []
    for n, it in enumerate(items):
        if isinstance(it, Mapping):
            task, completion, id_ = it["task"], it["completion"], it.get("id")
        else:
            (task, completion), id_ = it, None
        if id_ is None:
            id_ = f"{_task_name(task)}#{n}"
        out.append({"id": str(id_), "task": task, "completion": completion})
    return out


def _task_name(task: Any) -> str:
    """A task's name for ids and entries: its id, ``inline`` for an inline task without one."""
    if isinstance(task, str):
        return task
    if isinstance(task, Mapping):
        return str(task.get("id", "inline"))
    return str(task)


def _usable(item: Mapping[str, Any]) -> bool:
    """Whether an item can be sent: a task id (a non-empty string) or an inline task (a mapping)."""
    task = item.get("task")
    return (isinstance(task, str) and task != "") or isinstance(task, Mapping)


def _no_task_entry(item: Mapping[str, Any]) -> Dict[str, Any]:
    """The unscored entry of an item with no usable task: answered here, never sent."""
    detail = f"the item's task is {item.get('task')!r}, not a task id or an inline task"
    return _unscored_entry(item, "no-task", detail)


def _merge(batch: List[Dict[str, Any]], scored: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Entries for the whole batch, in order: the scored ones for the usable items, a ``no-task``
    entry for the others."""
    it = iter(scored)
    return [next(it) if _usable(item) else _no_task_entry(item) for item in batch]


def _error(status: int, body: bytes) -> AorltaError:
    try:
        e = json.loads(body)["error"]
        return AorltaError(status, e["code"], e["message"])
    except (ValueError, KeyError, TypeError):
        return AorltaError(status, "http-error", body[:200].decode("utf-8", "replace"))


def _retry_after(headers: Mapping[str, str], default: float) -> float:
    try:
        return max(0.0, float(headers.get("retry-after", default)))
    except ValueError:
        return default


def _chunks(items: List[Dict[str, Any]], n: int) -> List[List[Dict[str, Any]]]:
    return [items[i : i + n] for i in range(0, len(items), n)] or [[]]


#: The codes of a ``413`` that a smaller request avoids.
SPLITTABLE = ("batch-exceeds-queue", "too-many-items")


def unreachable_entry(item: Mapping[str, Any], reason: str) -> Dict[str, Any]:
    """The unscored entry given to an item the service could not be asked about."""
    return _unscored_entry(item, "unreachable", reason)


def _unscored_entry(item: Mapping[str, Any], code: str, detail: str) -> Dict[str, Any]:
    """An unscored entry made by the client, with one reason."""
    return {
        "id": item.get("id"),
        "task": _task_name(item.get("task")),
        "reward": None,
        "scored": False,
        "parts": None,
        "reasons": [{"code": code, "detail": detail}],
        "legs": [],
    }


class _Settings:
    """What both clients are configured with: where the service is and how to call it."""

    def __init__(
        self,
        url: Optional[str],
        *,
        profile: Optional[str],
        timeout: float,
        retries: Optional[int],
        max_batch: int,
        retry_budget: float,
        on_unreachable: str,
        token: Optional[str],
    ):
        parsed = urllib.parse.urlsplit(url or default_url())
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError(f"expected an http://HOST:PORT url, not {url!r}")
        if on_unreachable not in ("raise", "unscored"):
            raise ValueError(f"on_unreachable is 'raise' or 'unscored', not {on_unreachable!r}")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.base = parsed.path.rstrip("/")
        self.profile = profile
        self.timeout = timeout
        self.retries = retries
        self.max_batch = max_batch
        self.retry_budget = retry_budget
        self.on_unreachable = on_unreachable
        token = (default_token() if token is None else token.strip()) or None
        if token is not None and any(c.isspace() or not c.isprintable() or not c.isascii() for c in token):
            raise ValueError("the token must be printable ASCII without spaces")
        self._auth = {"Authorization": f"Bearer {token}"} if token else {}
        self._checked_timeout = False

    def __repr__(self) -> str:  # never shows the token
        return f"{type(self).__name__}(http://{self.host}:{self.port}{self.base}, token={'set' if self._auth else 'none'})"

    def _retry_wait(self, attempt: int, status: int, headers: Mapping[str, str], start: float) -> Optional[float]:
        """How long to wait before retry ``attempt`` (1-based), or None when the retry budget
        (or the ``retries`` count) is spent. A 503 waits its ``Retry-After``; a transport
        failure backs off from 0.1 s to 2 s."""
        if self.retries is not None and attempt > self.retries:
            return None
        wait = _retry_after(headers, 1.0) if status == 503 else min(0.1 * 2**attempt, 2.0)
        if time.monotonic() - start + wait > self.retry_budget:
            return None
        return wait

    def _fit_timeout(self, health: Mapping[str, Any]) -> None:
        """Raises ``timeout`` above the service's longest item time limit plus its queue wait."""
        self._checked_timeout = True
        limits = health.get("item_timeout_s") or {}
        longest = max([float(v) for v in limits.values()] or [0.0])
        need = longest + float(health.get("queue_wait_s", 0.0)) + 30.0
        if longest and self.timeout < need:
            log.warning(
                "timeout %.0f s is below the service's item time limit of %.0f s; using %.0f s",
                self.timeout, longest, need,
            )
            self.timeout = need

    def _score_body(self, chunk: List[Dict[str, Any]], profile: Optional[str]) -> Dict[str, Any]:
        body: Dict[str, Any] = {"items": chunk}
        if profile or self.profile:
            body["profile"] = profile or self.profile
        return body

    def _get_reward_request(
        self,
        query: Sequence[str],
        prompts: Optional[Sequence[str]],
        labels: Sequence[Any],
        profile: Optional[str],
    ) -> Tuple[str, Dict[str, Any]]:
        """The path and body of a ``POST /get_reward``."""
        path = "/get_reward"
        if profile or self.profile:
            path += "?" + urllib.parse.urlencode({"profile": profile or self.profile})
        body: Dict[str, Any] = {"query": list(query), "labels": list(labels)}
        if prompts is not None:
            body["prompts"] = list(prompts)
        return path, body


def _item(task: Any, completion: str, id: Optional[str]) -> Dict[str, Any]:
    """One ``/v1/score`` item."""
    item: Dict[str, Any] = {"task": task, "completion": completion}
    if id is not None:
        item["id"] = id
    return item


class Client(_Settings):
    """A synchronous client; safe to share between threads (one connection per thread).

    ``url`` is the service's base URL; ``profile`` the default profile for requests (the
    service's default when ``None``); ``timeout`` seconds to wait for one answer (raised above
    the service's item time limit on first use); ``retry_budget`` seconds within which 503s,
    dropped connections and time-outs are retried (``retries`` caps the count too when given);
    ``max_batch`` the most items sent in one request; ``on_unreachable`` ``"raise"`` (default)
    or ``"unscored"``; ``token`` the service's bearer token (``$AORLTA_TOKEN`` when ``None``;
    ``""`` sends none).
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        profile: Optional[str] = None,
        timeout: float = 300.0,
        retries: Optional[int] = None,
        max_batch: int = 1024,
        retry_budget: float = 600.0,
        on_unreachable: str = "raise",
        token: Optional[str] = None,
    ):
        super().__init__(
            url, profile=profile, timeout=timeout, retries=retries, max_batch=max_batch,
            retry_budget=retry_budget, on_unreachable=on_unreachable, token=token,
        )
        self._local = threading.local()

    # -- transport -----------------------------------------------------------------------

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def request(self, method: str, path: str, body: Any = None) -> Tuple[int, Dict[str, str], bytes]:
        """Sends one request (JSON body when ``body`` is not None); returns status, headers and
        body. Retries 503s, dropped connections and time-outs within the retry budget; never
        raises for other statuses."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        headers.update(self._auth)
        attempt, start = 0, time.monotonic()
        while True:
            try:
                conn = self._conn()
                conn.timeout = self.timeout
                conn.request(method, self.base + path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                hdrs = {k.lower(): v for k, v in resp.getheaders()}
                if hdrs.get("connection", "").lower() == "close":
                    self._drop()
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                self._drop()
                attempt += 1
                wait = self._retry_wait(attempt, 0, {}, start)
                if wait is None:
                    raise AorltaError(0, "unreachable", f"{self.host}:{self.port}: {e!r}") from e
                time.sleep(wait)
                continue
            if resp.status == 503:
                attempt += 1
                wait = self._retry_wait(attempt, 503, hdrs, start)
                if wait is not None:
                    time.sleep(wait)
                    continue
            return resp.status, hdrs, payload

    def _json(self, method: str, path: str, body: Any = None) -> Any:
        status, _, payload = self.request(method, path, body)
        if status != 200:
            raise _error(status, payload)
        return json.loads(payload)

    def close(self) -> None:
        """Closes this thread's connection."""
        self._drop()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- endpoints -----------------------------------------------------------------------

    def score(self, items: Iterable[Item], profile: Optional[str] = None) -> List[RewardEntry]:
        """Reward entries for ``items``, in order (``POST /v1/score``)."""
        if not self._checked_timeout:
            try:
                self._fit_timeout(self.health())
            except AorltaError:
                self._checked_timeout = True
        batch = _items(items)
        send = [it for it in batch if _usable(it)]
        out: List[Dict[str, Any]] = []
        if send or not batch:  # an empty batch is the service's to refuse
            for chunk in _chunks(send, self.max_batch):
                out.extend(self._score_chunk(chunk, profile))
        return cast(List[RewardEntry], _merge(batch, out))

    def _score_chunk(self, chunk: List[Dict[str, Any]], profile: Optional[str]) -> List[Dict[str, Any]]:
        try:
            status, _, payload = self.request("POST", "/v1/score", self._score_body(chunk, profile))
        except AorltaError as e:
            if self.on_unreachable == "unscored":
                return [unreachable_entry(it, e.message) for it in chunk]
            raise
        if status == 200:
            return cast(List[Dict[str, Any]], json.loads(payload)["results"])
        err = _error(status, payload)
        if status == 413 and err.code in SPLITTABLE and len(chunk) > 1:
            half = (len(chunk) + 1) // 2
            self.max_batch = min(self.max_batch, half)
            return self._score_chunk(chunk[:half], profile) + self._score_chunk(chunk[half:], profile)
        if status == 503 and self.on_unreachable == "unscored":
            return [unreachable_entry(it, err.message) for it in chunk]
        raise err

    def score_one(self, task: Any, completion: str, id: Optional[str] = None, profile: Optional[str] = None) -> RewardEntry:
        """The reward entry of one completion."""
        return self.score([_item(task, completion, id)], profile)[0]

    def get_reward(
        self,
        query: Sequence[str],
        prompts: Optional[Sequence[str]],
        labels: Sequence[Any],
        profile: Optional[str] = None,
    ) -> GetRewardAnswer:
        """OpenRLHF's shape (``POST /get_reward``): ``{"rewards", "scores", "extra_logs"}``."""
        return cast(GetRewardAnswer, self._json("POST", *self._get_reward_request(query, prompts, labels, profile)))

    def tasks(self) -> List[Dict[str, Any]]:
        """Every task the service offers: id, kind, hash, prompt."""
        return cast(List[Dict[str, Any]], self._json("GET", "/v1/tasks")["tasks"])

    def profiles(self) -> Dict[str, Any]:
        """The profiles offered and the default."""
        return cast(Dict[str, Any], self._json("GET", "/v1/profiles"))

    def health(self) -> Dict[str, Any]:
        """``GET /healthz``."""
        return cast(Dict[str, Any], self._json("GET", "/healthz"))

    def metrics(self) -> str:
        """The Prometheus text of ``GET /metrics``."""
        status, _, payload = self.request("GET", "/metrics")
        if status != 200:
            raise _error(status, payload)
        return payload.decode()


class AsyncClient(_Settings):
    """An asyncio client with a small pool of keep-alive connections.

    Same arguments as :class:`Client`, plus ``connections``: the most requests in flight at
    once (more wait for a free connection). Use ``async with AsyncClient(...) as c``, or call
    :meth:`aclose`. One client belongs to one event loop.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        profile: Optional[str] = None,
        timeout: float = 300.0,
        retries: Optional[int] = None,
        max_batch: int = 1024,
        retry_budget: float = 600.0,
        on_unreachable: str = "raise",
        connections: int = 8,
        token: Optional[str] = None,
    ):
        super().__init__(
            url, profile=profile, timeout=timeout, retries=retries, max_batch=max_batch,
            retry_budget=retry_budget, on_unreachable=on_unreachable, token=token,
        )
        self._idle: List[Tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._slots = asyncio.Semaphore(connections)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the idle connections."""
        while self._idle:
            _, w = self._idle.pop()
            w.close()
            try:
                await w.wait_closed()
            except OSError:
                pass

    async def _once(self, method: str, path: str, data: Optional[bytes]) -> Tuple[int, Dict[str, str], bytes]:
        if self._idle:
            reader, writer = self._idle.pop()
        else:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        head = f"{method} {self.base}{path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        for k, v in self._auth.items():
            head += f"{k}: {v}\r\n"
        if data is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        writer.write((head + "\r\n").encode() + (data or b""))
        await writer.drain()
        status_line = await reader.readline()
        if not status_line:
            writer.close()
            raise ConnectionError("the service closed the connection")
        status = int(status_line.split()[1])
        headers: Dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            k, _, v = line.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif "chunked" in headers.get("transfer-encoding", ""):
            parts = []
            while True:
                size = int((await reader.readline()).strip(), 16)
                if size == 0:
                    await reader.readline()
                    break
                parts.append(await reader.readexactly(size))
                await reader.readline()
            body = b"".join(parts)
        else:
            body = await reader.read()
            headers["connection"] = "close"
        # An HTTP/1.0 answer closes its connection unless it says keep-alive.
        http10 = status_line.startswith(b"HTTP/1.0")
        connection = headers.get("connection", "").lower()
        if connection == "close" or (http10 and connection != "keep-alive"):
            writer.close()
        else:
            self._idle.append((reader, writer))
        return status, headers, body

    async def request(self, method: str, path: str, body: Any = None) -> Tuple[int, Dict[str, str], bytes]:
        """As :meth:`Client.request`."""
        data = None if body is None else json.dumps(body).encode()
        attempt, start = 0, time.monotonic()
        async with self._slots:
            while True:
                try:
                    status, headers, payload = await asyncio.wait_for(self._once(method, path, data), self.timeout)
                except (ConnectionError, OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError, IndexError) as e:
                    attempt += 1
                    wait = self._retry_wait(attempt, 0, {}, start)
                    if wait is None:
                        raise AorltaError(0, "unreachable", f"{self.host}:{self.port}: {e!r}") from e
                    await asyncio.sleep(wait)
                    continue
                if status == 503:
                    attempt += 1
                    wait = self._retry_wait(attempt, 503, headers, start)
                    if wait is not None:
                        await asyncio.sleep(wait)
                        continue
                return status, headers, payload

    async def _json(self, method: str, path: str, body: Any = None) -> Any:
        status, _, payload = await self.request(method, path, body)
        if status != 200:
            raise _error(status, payload)
        return json.loads(payload)

    async def score(self, items: Iterable[Item], profile: Optional[str] = None) -> List[RewardEntry]:
        """As :meth:`Client.score`; chunks of a large batch are sent concurrently."""
        if not self._checked_timeout:
            try:
                self._fit_timeout(await self.health())
            except AorltaError:
                self._checked_timeout = True
        batch = _items(items)
        send = [it for it in batch if _usable(it)]
        answers = (
            await asyncio.gather(*(self._score_chunk(c, profile) for c in _chunks(send, self.max_batch)))
            if send or not batch
            else []
        )
        return cast(List[RewardEntry], _merge(batch, [e for a in answers for e in a]))

    async def _score_chunk(self, chunk: List[Dict[str, Any]], profile: Optional[str]) -> List[Dict[str, Any]]:
        try:
            status, _, payload = await self.request("POST", "/v1/score", self._score_body(chunk, profile))
        except AorltaError as e:
            if self.on_unreachable == "unscored":
                return [unreachable_entry(it, e.message) for it in chunk]
            raise
        if status == 200:
            return cast(List[Dict[str, Any]], json.loads(payload)["results"])
        err = _error(status, payload)
        if status == 413 and err.code in SPLITTABLE and len(chunk) > 1:
            half = (len(chunk) + 1) // 2
            self.max_batch = min(self.max_batch, half)
            a, b = await asyncio.gather(self._score_chunk(chunk[:half], profile), self._score_chunk(chunk[half:], profile))
            return a + b
        if status == 503 and self.on_unreachable == "unscored":
            return [unreachable_entry(it, err.message) for it in chunk]
        raise err

    async def score_one(self, task: Any, completion: str, id: Optional[str] = None, profile: Optional[str] = None) -> RewardEntry:
        """The reward entry of one completion."""
        return (await self.score([_item(task, completion, id)], profile))[0]

    async def get_reward(
        self,
        query: Sequence[str],
        prompts: Optional[Sequence[str]],
        labels: Sequence[Any],
        profile: Optional[str] = None,
    ) -> GetRewardAnswer:
        """As :meth:`Client.get_reward`."""
        return cast(GetRewardAnswer, await self._json("POST", *self._get_reward_request(query, prompts, labels, profile)))

    async def tasks(self) -> List[Dict[str, Any]]:
        """As :meth:`Client.tasks`."""
        return cast(List[Dict[str, Any]], (await self._json("GET", "/v1/tasks"))["tasks"])

    async def health(self) -> Dict[str, Any]:
        """``GET /healthz``."""
        return cast(Dict[str, Any], await self._json("GET", "/healthz"))


class Coalescer:
    """Gathers single-item calls made concurrently on one event loop into batched requests.

    ``await coalescer.score_one(task, completion)`` queues the item; the queue is sent as one
    ``/v1/score`` request (split by the client as usual) when it reaches ``max_items`` or
    ``linger`` seconds after its first item, whichever comes first. Each caller gets its own
    entry. verl's reward loop awaits one ``compute_score`` per sample: thousands of them in a
    step become a few requests.
    """

    def __init__(self, client: AsyncClient, *, linger: float = 0.005, max_items: Optional[int] = None):
        self.client = client
        self.linger = linger
        self.max_items = max_items or client.max_batch
        self._pending: List[Tuple[Dict[str, Any], "asyncio.Future[RewardEntry]"]] = []
        self._timer: Optional[asyncio.TimerHandle] = None
        self._sending: "set[asyncio.Future[None]]" = set()
        self.requests = 0

    async def score_one(self, task: Any, completion: str, profile: Optional[str] = None) -> RewardEntry:
        """The entry of one completion, scored together with the calls around it."""
        if profile is not None and profile != self.client.profile:
            return await self.client.score_one(task, completion, profile=profile)
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[RewardEntry]" = loop.create_future()
        self._pending.append(({"task": task, "completion": completion}, fut))
        if len(self._pending) >= self.max_items:
            self._flush()
        elif self._timer is None:
            self._timer = loop.call_later(self.linger, self._flush)
        return await fut

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        if batch:
            self.requests += 1
            # Held until done: the event loop keeps only weak references to tasks.
            task = asyncio.ensure_future(self._send(batch))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: List[Tuple[Dict[str, Any], "asyncio.Future[RewardEntry]"]]) -> None:
        try:
            entries = await self.client.score([item for item, _ in batch])
        except Exception as e:  # every caller learns of the failure
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(e)
            return
        for (_, fut), entry in zip(batch, entries):
            if not fut.done():
                fut.set_result(entry)
