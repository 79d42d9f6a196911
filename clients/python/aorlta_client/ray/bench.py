"""``python -m aorlta_client.ray bench``: what the router adds and what more workers give.

For each batch size, the same number of distinct items (the pool's completions cycled, each
with a distinct suffix, ``(attempt …)`` as ``aorlta bench serve`` makes them, so no store or
in-flight sharing answers for the work) is scored three ways, one batch at a time:

- ``client, 1 worker``: :class:`~aorlta_client.client.Client` straight to the first worker;
- ``router, 1 worker``: a :class:`~aorlta_client.router.Router` over that worker alone;
- ``router, N workers``: the router over every worker.

Each row: batches, items, seconds, items/s, the batch latency's p50 and p99 (nearest rank), how
many entries came back unscored, and CPU time per item: the client's or the router's (the
``time.thread_time`` of its own threads, so not Ray's threads in this process) and the
services' (each worker's process tree, compilers and harness processes included, from
``/proc`` on its node). docs/SCALING.md reads these figures.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

from aorlta_client.ray.tables import table as _table, workers_table
from aorlta_client.router import Router


def _distinct(pool: Sequence[Dict[str, Any]], n: int, tag: str, same: bool) -> List[Dict[str, Any]]:
    src = itertools.cycle(pool)
    return [
        {"id": f"{tag}-{i}", "task": it["task"], "completion": it["completion"] if same else f"{it['completion']}\n(attempt {tag}-{i})"}
        for i, it in zip(range(n), src)
    ]


def _rank(xs: List[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(-(-q * len(s) // 1)) - 1))]


def _service_cpu(svc: Any) -> float:
    import ray

    return float(sum(ray.get([a.cpu_seconds.remote() for a in svc.actors], timeout=60)))


def _run(score: Any, cpu: Any, svc: Any, pool: Sequence[Dict[str, Any]], profile: Optional[str], batch: int, items: int, tag: str, same: bool) -> List[Any]:
    """``score`` the items one batch at a time; ``cpu()`` is the CPU seconds the scoring side
    has spent so far (its threads only: not Ray's own threads in this process)."""
    n = max(1, items // batch)
    data = _distinct(pool, (n + 1) * batch, tag, same)
    score(data[n * batch :], profile)  # warm: connections, time-outs, task kinds
    lat, unscored = [], 0
    cpu0, svc0 = cpu(), _service_cpu(svc)
    t0 = time.monotonic()
    for b in range(n):
        t = time.monotonic()
        entries = score(data[b * batch : (b + 1) * batch], profile)
        lat.append(time.monotonic() - t)
        unscored += sum(1 for e in entries if not e.get("scored"))
    wall = time.monotonic() - t0
    own, served = cpu() - cpu0, _service_cpu(svc) - svc0
    k = n * batch
    return [
        n, k, f"{wall:.2f}", f"{k / wall:.1f}" if k / wall < 100 else f"{k / wall:.0f}",
        f"{1e3 * _rank(lat, 0.5):.1f}", f"{1e3 * _rank(lat, 0.99):.1f}", unscored,
        f"{1e6 * own / k:.0f}", f"{1e6 * served / k:.0f}",
    ]


def run_bench(svc: Any, pool: Sequence[Dict[str, Any]], profile: Optional[str], batches: Sequence[int], items: int, same: bool = False) -> str:
    """Runs the three ways for every batch size; answers the table as text. With ``same``, the
    pool's completions are sent as they are: with a store, every entry after the first batch
    comes from it, which measures what the router itself costs per entry."""
    router = svc.router
    first = router.workers[0]
    alone = Router([first], qa_chunk=router.qa_chunk, kernel_chunk=router.kernel_chunk, connections=router.connections, balance=router.balance)
    direct = first.new_client()
    n = len(router.workers)
    gpus = sum(w.gpus for w in router.workers)
    rows = []
    runs = 0
    load0 = os.getloadavg()[0]
    for b in batches:
        for label, score, cpu in (
            ("client, 1 worker", direct.score, time.thread_time),
            ("router, 1 worker", alone.score, lambda: alone.cpu_seconds),
            (f"router, {n} workers", router.score, lambda: router.cpu_seconds),
        ):
            runs += 1
            rows.append([b, label] + _run(score, cpu, svc, pool, profile, b, items, f"bench{runs}-{os.getpid()}", same))
            print(f"aorlta ray bench: batch {b}, {label}: {rows[-1][5]} items/s", file=sys.stderr, flush=True)
    how = "sent as they are (from the store after the first batch)" if same else "each sent once with a distinct suffix"
    head = (
        f"aorlta ray bench: {len(pool)} completions cycled, {how}; "
        f"{n} workers, {gpus} GPUs; router on {os.uname().nodename} ({os.cpu_count()} cores), "
        f"{router.connections} Q&A requests in flight per worker, chunks of {router.qa_chunk} Q&A / {router.kernel_chunk} kernel items; "
        f"load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    header = ["BATCH", "WAY", "BATCHES", "ITEMS", "SECONDS", "ITEMS/S", "P50 MS", "P99 MS", "UNSCORED", "CLIENT CPU US/ITEM", "SERVICE CPU US/ITEM"]
    table = _table(header, rows)
    return head + "\n" + table + "\n\n" + workers_table(svc, router.cache_counters())
