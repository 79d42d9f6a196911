"""A router over several ``aorlta serve`` workers (one per node): standard library only.

:class:`Router` takes a batch of items (the JSON shape of ``POST /v1/score``) and spreads it over
its workers:

- **Q&A items go anywhere**: they are cut into chunks of ``qa_chunk`` items that every live worker
  takes from one shared queue, so a faster worker takes more.
- **Kernel items go to workers with GPUs**, each to the first worker of its own order (weighted
  rendezvous hashing of the task and completion over the workers' keys, weighted by their GPU
  counts) that is under its cap for the batch: its share by GPUs plus ``balance`` (bounded
  loads), and no more than the free places of its kernel lane (from ``/healthz``). The same
  completion goes to the same node while that node lives (unless that node is full), so a timing
  leg, whose cache key holds the host's GPUs (docs/ARCHITECTURE.md, "Cache identity"), is found
  in the shared store instead of being measured again on another node.
- **Input order and ids are kept**: an item without an id gets ``<task>#<index>``, its index in
  the whole batch, exactly as one service would give it.
- **A dead worker's items are retried on another live worker.** A worker is dead when a request
  to it fails on the connection, or stays unanswered past ``probe_after``, and its liveness
  check (a Ray actor's answer, or ``/healthz``) fails too; its unanswered kernel items move to
  the next worker of their order, its Q&A chunks go back to the shared queue, and a late answer
  from it is dropped. A request is answered whole or not at all, so every item gets exactly one
  entry.
- **When no live worker can score an item, it is answered unscored** (``reward: null``, reason
  ``no-worker``), never with a made-up number.

A refusal that no other worker would answer differently (``422 unknown-profile``, ``invalid-
request`` ...) is raised as :class:`~aorlta_client.client.AorltaError`, as the service's own
client does. :func:`aorlta_client.front.serve_front` puts the router behind a small HTTP front
with the service's routes, so the trainer drop-ins can point ``AORLTA_URL`` at it; a
:class:`~aorlta_client.workers.Worker` is one service it sends to.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections import deque
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from aorlta_client.client import AorltaError, Item, _items, _unscored_entry, _usable
from aorlta_client.workers import KERNEL, QA, Worker

__all__ = ["KERNEL", "QA", "Router", "Worker", "item_key", "task_kind"]

log = logging.getLogger("aorlta_client.router")

#: Called with (entries answered, items in the batch) each time a request is answered. It runs
#: while the router holds its lock: keep it short.
Progress = Callable[[int, int], None]


def task_kind(task: Any, kinds: Mapping[str, str]) -> str:
    """``kernel`` or ``qa``: the lane an item's task goes to. A task id takes the kind the service
    lists for it (an unknown id is ``qa``: any worker answers it ``unknown-task``); an inline task
    is a kernel task when it has a ``signature``, as the service reads it."""
    if isinstance(task, str):
        return KERNEL if kinds.get(task) == KERNEL else QA
    if isinstance(task, Mapping) and "signature" in task:
        return KERNEL
    return QA


def item_key(item: Mapping[str, Any]) -> bytes:
    """What a kernel item's place is decided by: its task and completion (not its id)."""
    text = json.dumps([item.get("task"), item.get("completion")], sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _weight(key: bytes, w: "Worker") -> float:
    """Weighted rendezvous hashing: the worker with the highest score is the item's first choice;
    a worker with twice the GPUs is first for twice the items."""
    h = hashlib.blake2b(key + b"\0" + w.key.encode(), digest_size=8).digest()
    u = (int.from_bytes(h, "big") + 0.5) / 2.0**64
    return -max(w.gpus, 1) / math.log(u)


class _Batch:
    """One :meth:`Router.score` call's shared state (guarded by ``cond``)."""

    def __init__(self, items: List[Dict[str, Any]], profile: Optional[str], progress: Optional[Progress]):
        self.items = items
        self.profile = profile
        self.progress = progress
        self.out: List[Optional[Mapping[str, Any]]] = [None] * len(items)
        self.left = len(items)
        self.qa: Deque[List[int]] = deque()
        self.kernel: Dict[int, Deque[List[int]]] = {}
        self.given: Dict[int, int] = {}
        #: Per worker, the chunks sent and not yet answered: token → (kind, chunk, when sent).
        self.flying: Dict[int, Dict[int, Tuple[str, List[int], float]]] = {}
        self.error: Optional[BaseException] = None
        self.cond = threading.Condition()


class Router:
    """Spreads batches over ``workers`` (a list of :class:`Worker`).

    ``qa_chunk`` / ``kernel_chunk``: items per request of each kind; ``connections``: Q&A
    requests in flight to each worker at once (a worker's kernel chunks of a batch are all sent
    at once, up to ``max_senders`` requests, as its lane's room allows); ``balance``: how far over its share of a batch's kernel items
    (by GPUs) a worker may go to keep items on their first choice (0.1: 10 %); ``busy_wait``:
    seconds to wait before asking an overloaded (503) worker again; ``probe_after``: a worker
    with a request unanswered for this many seconds has its liveness checked (every as many
    seconds), and when the check fails its unanswered items go to the others without waiting
    for the request's own time-out (a host that crashed sends no reset).
    """

    def __init__(
        self,
        workers: Iterable[Worker],
        *,
        qa_chunk: int = 256,
        kernel_chunk: int = 8,
        connections: int = 4,
        balance: float = 0.1,
        busy_wait: float = 1.0,
        probe_after: float = 5.0,
        max_senders: int = 64,
    ):
        self.workers = list(workers)
        if not self.workers:
            raise ValueError("a router needs at least one worker")
        keys = [w.key for w in self.workers]
        if len(set(keys)) != len(keys):
            raise ValueError(f"worker keys must differ: {keys}")
        if qa_chunk < 1 or kernel_chunk < 1 or connections < 1:
            raise ValueError("qa_chunk, kernel_chunk and connections must be at least 1")
        self.qa_chunk = qa_chunk
        self.kernel_chunk = kernel_chunk
        self.connections = connections
        self.balance = balance
        self.busy_wait = busy_wait
        self.probe_after = probe_after
        self.max_senders = max_senders
        self._lock = threading.Lock()
        self._kinds: Optional[Dict[str, str]] = None
        self._profiles: Optional[Dict[str, Any]] = None
        self._rr = 0
        #: CPU seconds the router's own threads have spent scoring (``time.thread_time`` of the
        #: calling thread and of every sender thread): what one process pays per item.
        self.cpu_seconds = 0.0

    # -- workers -------------------------------------------------------------------------

    def live(self, gpu: bool = False) -> List[Worker]:
        """The workers not known dead (with GPUs only, when ``gpu``)."""
        return [w for w in self.workers if not w.dead and (w.gpus > 0 or not gpu)]

    def rotated(self, workers: List[Worker]) -> List[Worker]:
        """``workers`` starting one further along at each call (single requests take turns)."""
        with self._lock:
            self._rr += 1
            start = self._rr % len(workers) if workers else 0
        return workers[start:] + workers[:start]

    def retire(self, w: Worker, reason: str) -> None:
        """Marks a worker dead: nothing more is sent to it."""
        with self._lock:
            if not w.dead:
                w.dead, w.dead_reason = True, reason
                log.warning("worker %s (%s) is dead: %s; its items go to the others", w.key, w.url, reason)

    def recheck(self, every: float = 10.0) -> None:
        """Gives a dead worker back its place when its liveness check passes again (checked at
        most once every ``every`` seconds)."""
        now = time.monotonic()
        for w in self.workers:
            if w.dead and now - w.probed > every:
                w.probed = now
                if w.is_alive():
                    with self._lock:
                        w.dead, w.dead_reason = False, ""
                    log.warning("worker %s (%s) answers again", w.key, w.url)

    def _fetch(self, path: str) -> Optional[Any]:
        """A read-only endpoint's JSON from the first live worker that answers it."""
        for w in self.live():
            try:
                return w.client._json("GET", path)
            except AorltaError as e:
                if e.status != 0:
                    raise
                if not w.is_alive():
                    self.retire(w, f"GET {path}: {e.message}")
        return None

    def kinds(self) -> Dict[str, str]:
        """Task id → kind (``qa``, ``kernel``), from the first live worker's ``/v1/tasks`` (every
        worker runs the same config)."""
        if self._kinds is None:
            tasks = self._fetch("/v1/tasks")
            if tasks is not None:
                self._kinds = {t["id"]: t["kind"] for t in tasks["tasks"]}
        return self._kinds or {}

    def profiles(self) -> Dict[str, Any]:
        """``GET /v1/profiles`` of a live worker (kept after the first answer)."""
        if self._profiles is None:
            self._profiles = self._fetch("/v1/profiles")
        return self._profiles or {}

    def cache_counters(self) -> Dict[str, Dict[str, float]]:
        """Per live worker, its store and work counters from ``/metrics`` since it started:
        ``aorlta_cache_hits_total``, ``aorlta_cache_misses_total``, ``aorlta_items_computed_total``
        (entries a worker made, from the store or not) and ``aorlta_items_shared_total`` (items
        answered by an identical item in flight)."""
        names = ("aorlta_cache_hits_total", "aorlta_cache_misses_total", "aorlta_items_computed_total", "aorlta_items_shared_total")
        out: Dict[str, Dict[str, float]] = {}
        for w in self.live():
            try:
                text = w.client.metrics()
            except AorltaError:
                continue
            row = {n: 0.0 for n in names}
            for line in text.splitlines():
                parts = line.split(" ")
                if len(parts) == 2 and parts[0] in names:
                    row[parts[0]] = float(parts[1])
            out[w.key] = row
        return out

    # -- scoring -------------------------------------------------------------------------

    def score(self, items: Iterable[Item], profile: Optional[str] = None, progress: Optional[Progress] = None) -> List[Dict[str, Any]]:
        """One reward entry per item, in order (``POST /v1/score`` spread over the workers)."""
        t0 = time.thread_time()
        try:
            return self._score(items, profile, progress)
        finally:
            self._add_cpu(time.thread_time() - t0)

    def _score(self, items: Iterable[Item], profile: Optional[str], progress: Optional[Progress]) -> List[Dict[str, Any]]:
        batch = _Batch(_items(items), profile, progress)
        if not batch.items:
            raise AorltaError(422, "empty-batch", "the batch has no items")
        self.recheck()
        kinds = self.kinds()
        qa, kernel = [], []
        for i, it in enumerate(batch.items):
            if not _usable(it):
                detail = f"the item's task is {it.get('task')!r}, not a task id or an inline task"
                self._answer(batch, [i], [_unscored_entry(it, "no-task", detail)])
            elif task_kind(it["task"], kinds) == KERNEL:
                kernel.append(i)
            else:
                qa.append(i)
        with batch.cond:
            for c in range(0, len(qa), self.qa_chunk):
                batch.qa.append(qa[c : c + self.qa_chunk])
            caps = self._caps(len(kernel)) if kernel else {}
            for i in kernel:
                self._place(batch, i, caps)
            self._starve(batch)
            qa_chunks = len(batch.qa)
            kernel_chunks = {wid: len(q) for wid, q in batch.kernel.items()}
        threads = []
        for w in self.live():
            # Q&A: `connections` requests in flight; kernel items: every chunk a worker was given
            # at once (its lane's room bounds them), so its compiles and GPUs all have work.
            senders = max(min(self.connections, qa_chunks), min(self.max_senders, kernel_chunks.get(id(w), 0)), 1)
            for n in range(senders):
                t = threading.Thread(target=self._drive, args=(batch, w), name=f"aorlta-router-{w.key}-{n}", daemon=True)
                t.aorlta_worker = w  # type: ignore[attr-defined]
                threads.append(t)
        for t in threads:
            t.start()
        while True:
            with batch.cond:
                if not batch.left or batch.error is not None:
                    break
                if not any(t.is_alive() for t in threads if not self._dead(t, batch)):
                    # Every sender ended (every worker it had died): answer what is queued, and
                    # what a dead worker's sender still holds (it may not have given it back yet;
                    # its late answer or give-back is then dropped, its token gone).
                    for w in self.workers:
                        if w.dead:
                            for kind, chunk, _ in batch.flying.pop(id(w), {}).values():
                                self._no_worker(batch, [i for i in chunk if batch.out[i] is None], kind)
                    self._starve(batch, force=True)
                    break
                batch.cond.wait(1.0)
                self._starve(batch)  # a worker retired elsewhere (another batch, a forward)
                suspects = self._suspects(batch)
            for w in suspects:
                w.probed = time.monotonic()
                if not w.is_alive():
                    self.retire(w, f"a request unanswered for over {self.probe_after:g} s and its liveness check failed")
                    self._abandon(batch, w)
        for t in threads:
            if not self._dead(t, batch):
                t.join()  # a dead worker's sender may hang until its time-out: left behind
        if batch.error is not None:
            raise batch.error
        missing = [i for i, e in enumerate(batch.out) if e is None]
        if missing:
            raise AorltaError(500, "internal-error", f"the router lost items {missing[:10]}")
        return batch.out  # type: ignore[return-value]

    def _dead(self, t: threading.Thread, batch: _Batch) -> bool:
        """Whether sender ``t`` belongs to a retired worker."""
        return getattr(t, "aorlta_worker", None) is not None and t.aorlta_worker.dead  # type: ignore[attr-defined]

    def _suspects(self, batch: _Batch) -> List[Worker]:
        """Live workers with a request older than ``probe_after`` and no liveness check in the
        last ``probe_after`` seconds. Call with ``batch.cond`` held."""
        now = time.monotonic()
        out = []
        for w in self.live():
            sent = [t for _, _, t in batch.flying.get(id(w), {}).values()]
            if sent and now - min(sent) > self.probe_after and now - w.probed > self.probe_after:
                out.append(w)
        return out

    def _abandon(self, batch: _Batch, w: Worker) -> None:
        """Gives back every chunk in flight to retired worker ``w`` (a late answer is ignored)."""
        with batch.cond:
            for kind, chunk, _ in batch.flying.pop(id(w), {}).values():
                self._give_back(batch, w, kind, chunk)

    def _caps(self, n: int) -> Dict[int, int]:
        """Per live GPU worker, how many of this batch's ``n`` kernel items it may take: its
        share by GPUs times ``1 + balance`` (consistent hashing with bounded loads, Mirrokni,
        Thorup and Zadimoghaddam, SODA 2018: no worker gets much more than its share, and most
        items still go to their first choice), and no more than the free places of its kernel
        lane (``queue-items`` less ``queue_depth`` from ``/healthz``)."""
        live = self.live(gpu=True)
        gpus = sum(w.gpus for w in live) or 1
        caps = {}
        for w in live:
            share = math.ceil((1.0 + self.balance) * n * w.gpus / gpus)
            caps[id(w)] = min(share, w.kernel_room())
        return caps

    def _place(self, batch: _Batch, i: int, caps: Mapping[int, int]) -> None:
        """Queues kernel item ``i`` on the first live GPU worker of its order under its cap (the
        first of its order when none is), or answers it ``no-worker`` when no GPU worker lives.
        Call with ``batch.cond`` held."""
        key = item_key(batch.items[i])
        order = sorted(self.live(gpu=True), key=lambda w: _weight(key, w), reverse=True)
        if not order:
            self._no_worker(batch, [i], KERNEL)
            return
        pick = next((w for w in order if batch.given.get(id(w), 0) < caps.get(id(w), 0)), order[0])
        batch.given[id(pick)] = batch.given.get(id(pick), 0) + 1
        q = batch.kernel.setdefault(id(pick), deque())
        if q and len(q[-1]) < self.kernel_chunk:
            q[-1].append(i)
        else:
            q.append([i])

    def _starve(self, batch: _Batch, force: bool = False) -> None:
        """Moves the kernel queues of dead workers to live ones, and answers ``no-worker`` to
        what no live worker can take (everything still queued when ``force``). Call with
        ``batch.cond`` held."""
        live = {id(w) for w in self.live()}
        for wid, q in batch.kernel.items():
            if force or wid not in live:
                chunks = list(q)
                q.clear()
                for chunk in chunks:
                    if force:
                        self._no_worker(batch, chunk, KERNEL)
                    else:
                        for i in chunk:
                            self._place(batch, i, {})
        if force or not live:
            while batch.qa:
                self._no_worker(batch, batch.qa.popleft(), QA)
        batch.cond.notify_all()

    def _no_worker(self, batch: _Batch, idx: List[int], kind: str) -> None:
        dead = "; ".join(f"{w.key}: {w.dead_reason}" for w in self.workers if w.dead) or "none"
        what = "kernel items (no live worker with a GPU)" if kind == KERNEL else "items (no live worker)"
        detail = f"no worker can score {what}; dead workers: {dead}"
        self._answer(batch, idx, [_unscored_entry(batch.items[i], "no-worker", detail) for i in idx])

    def _answer(self, batch: _Batch, idx: List[int], entries: Sequence[Mapping[str, Any]]) -> int:
        """Records the entries of items not answered yet (a late answer of a chunk that was
        given back is dropped); how many were new. Call with ``batch.cond`` held."""
        new = 0
        for i, e in zip(idx, entries):
            if batch.out[i] is None:
                batch.out[i] = e
                batch.left -= 1
                new += 1
        if new and batch.progress is not None:
            batch.progress(len(batch.items) - batch.left, len(batch.items))
        return new

    def _take(self, batch: _Batch, w: Worker) -> Optional[Tuple[str, List[int], int]]:
        """The next chunk for ``w`` (its own kernel queue first, then the shared Q&A queue),
        entered in its in-flight list under a token; ``None`` when the batch is over or ``w``
        is dead. Waits while other workers hold items that may come back to it."""
        with batch.cond:
            while True:
                if batch.error is not None or batch.left == 0:
                    return None
                if w.dead:
                    self._starve(batch)  # what it still held goes to the others
                    return None
                q = batch.kernel.get(id(w))
                if q or batch.qa:
                    kind = KERNEL if q else QA
                    chunk = q.popleft() if q else batch.qa.popleft()
                    batch.flying.setdefault(id(w), {})[id(chunk)] = (kind, chunk, time.monotonic())
                    return kind, chunk, id(chunk)
                batch.cond.wait(1.0)  # every answer and every move notifies

    def _give_back(self, batch: _Batch, w: Worker, kind: str, chunk: List[int], token: Optional[int] = None) -> bool:
        """Puts an unanswered chunk back at the front of its queue (a dead worker's kernel items
        go to the next worker of their order). With ``token``, the chunk is taken off ``w``'s
        in-flight list in the same step, and only if it is still there: False when it was given
        back (or answered ``no-worker``) meanwhile. A chunk is always either queued, in flight
        or answered, never only in a sender's hands, so a batch that ends because every worker
        died finds every item."""
        with batch.cond:
            if token is not None and not self._land(batch, w, token):
                return False
            chunk = [i for i in chunk if batch.out[i] is None]
            if chunk and kind == QA:
                batch.qa.appendleft(chunk)
            elif chunk:
                batch.kernel.setdefault(id(w), deque()).appendleft(chunk)
            self._starve(batch)
        return True

    def _drive(self, batch: _Batch, w: Worker) -> None:
        """One connection's loop: take a chunk, send it, record its entries."""
        t0 = time.thread_time()
        try:
            self._send_all(batch, w)
        finally:
            self._add_cpu(time.thread_time() - t0)

    def _add_cpu(self, seconds: float) -> None:
        with self._lock:
            self.cpu_seconds += seconds

    def _send_all(self, batch: _Batch, w: Worker) -> None:
        while True:
            job = self._take(batch, w)
            if job is None:
                return
            kind, chunk, token = job
            # The chunk stays in flight until it is answered or given back, each in one step
            # under the batch's lock (`_give_back` with its token): never only in this thread.
            try:
                entries = w.client.score([batch.items[i] for i in chunk], batch.profile)
            except AorltaError as e:
                if e.status == 503:  # alive and full: ask again later
                    if self._give_back(batch, w, kind, chunk, token):
                        time.sleep(self.busy_wait)
                elif e.status == 0:
                    self._failed(batch, w, kind, chunk, token, e.message)
                else:  # a refusal no other worker would answer differently
                    with batch.cond:
                        if not self._land(batch, w, token):
                            continue  # given back already: its worker was retired
                        batch.error = e
                        batch.cond.notify_all()
                    return
                continue
            except Exception as e:  # a connection that broke in a way the client did not map
                self._failed(batch, w, kind, chunk, token, repr(e))
                continue
            with batch.cond:
                self._land(batch, w, token)
                if len(entries) != len(chunk):
                    msg = f"{w.key} answered {len(entries)} entries for {len(chunk)} items"
                    batch.error = AorltaError(500, "internal-error", msg)
                    batch.cond.notify_all()
                    return
                w.streak = 0
                w.requests += 1
                new = self._answer(batch, chunk, entries)
                w.entries += new
                if kind == KERNEL:
                    w.kernel_entries += new
                batch.cond.notify_all()

    def _land(self, batch: _Batch, w: Worker, token: int) -> bool:
        """Takes a chunk off the in-flight list; False when it was given back meanwhile."""
        with batch.cond:
            return batch.flying.get(id(w), {}).pop(token, None) is not None

    def _failed(self, batch: _Batch, w: Worker, kind: str, chunk: List[int], token: int, why: str) -> None:
        """A request to ``w`` failed on the connection: ``w`` is retired when its liveness check
        fails too, or after three such failures in a row; the chunk goes back (it stays in
        flight meanwhile: a batch that ends once ``w`` is retired answers it ``no-worker``)."""
        w.failures += 1
        w.streak += 1
        alive = w.is_alive()
        if not alive:
            self.retire(w, f"connection failed ({why}) and its liveness check failed")
        elif w.streak >= 3:
            self.retire(w, f"three requests in a row failed on the connection ({why})")
        self._give_back(batch, w, kind, chunk, token)
        if not w.dead:
            time.sleep(0.2)

    def summary_rows(self) -> List[Dict[str, Any]]:
        """One row per worker: key, url, GPUs, state, entries answered, requests, failures."""
        return [w.row() for w in self.workers]
