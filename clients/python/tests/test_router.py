"""The router (``aorlta_client.router``, standard library only) over two real ``aorlta serve``
processes given by URL, without Ray: kernel items spread within their share and kept on their
node, a worker killed half-way, and no worker left."""

import json
import math
import signal

import pytest

from aorlta_service import EXAMPLES, ROOT, start_server, stop_server

KERNELS = ROOT / "examples" / "kernels"


def _config(d):
    # Each service has its own memory store and its own fake GPU 0 (its own lease folder).
    return (
        f"tasks: [{EXAMPLES / 'tasks.jsonl'}, {KERNELS / 'tasks'}]\n"
        f"profiles: [{EXAMPLES / 'profile.yaml'}, {KERNELS / 'profile.yaml'}]\n"
        "cache: {kind: memory, max-entries: 10000}\n"
        f"gpus: [0]\nkernel: {{fake-gpu: true, lease-dir: {d / 'leases'}}}\n"
    )


def _pool(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def services(tmp_path):
    procs = []
    for n in range(2):
        d = tmp_path / f"node{n}"
        d.mkdir()
        procs.append(start_server(d, config_text=_config(d)))
    yield procs
    for proc, _ in procs:
        if proc.poll() is None:
            stop_server(proc)


def _router(services, **kw):
    from aorlta_client.router import Router, Worker

    opts = dict(kernel_chunk=4, qa_chunk=20, connections=1)
    opts.update(kw)
    return Router([Worker(url, key=f"node{n}", gpus=1) for n, (_, url) in enumerate(services)], **opts)


def _essence(e):
    return (e["id"], e["reward"], e["scored"], [(l["name"], l["state"]) for l in e["legs"]])


def _metric(url, name):
    from aorlta_client import Client

    for line in Client(url).metrics().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


def test_kernel_items_stay_within_their_share_and_on_their_node(services):
    router = _router(services)
    items = _pool(KERNELS / "pool.jsonl")
    first = router.score(items, "kernels")
    rows = router.summary_rows()
    share = math.ceil(1.1 * len(items) / 2)
    assert sum(r["kernel_entries"] for r in rows) == len(items)
    assert all(0 < r["kernel_entries"] <= share for r in rows), rows
    # Again, through a new router: every item goes to the node that scored it, whose own store
    # answers it (each service's store is its own memory).
    misses = [_metric(url, "aorlta_cache_misses_total") for _, url in services]
    again = _router(services).score(items, "kernels")
    assert [_essence(e) for e in again] == [_essence(e) for e in first]
    assert [_metric(url, "aorlta_cache_misses_total") for _, url in services] == misses


def test_a_killed_worker_s_items_are_scored_by_the_other(services):
    from aorlta_client import Client

    items = _pool(KERNELS / "pool.jsonl")
    want = Client(services[1][1]).score(items, "kernels")
    router = _router(services)
    victim = services[0][0]
    at = []

    def progress(done, total):
        if not at and done >= total // 2:
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=10)
            at.append(done)

    got = router.score(items, "kernels", progress)
    assert [_essence(e) for e in got] == [_essence(e) for e in want]
    dead, live = router.summary_rows()
    assert at and at[0] < len(items)
    assert dead["state"] == "dead" and "liveness check failed" in dead["dead_reason"], dead
    assert live["state"] == "live" and dead["entries"] + live["entries"] == len(items)


def test_a_worker_that_stops_answering_is_retired_without_waiting_for_its_time_out(services):
    from aorlta_client import Client

    items = _pool(KERNELS / "pool.jsonl")
    want = Client(services[1][1]).score(items, "kernels")
    router = _router(services, probe_after=1.0)
    victim = services[0][0]
    at = []

    def progress(done, total):
        # Stopped, not killed: its connections stay open and nothing answers on them.
        if not at and done >= total // 2:
            victim.send_signal(signal.SIGSTOP)
            at.append(done)

    try:
        got = router.score(items, "kernels", progress)
    finally:
        victim.send_signal(signal.SIGCONT)
    assert [_essence(e) for e in got] == [_essence(e) for e in want]
    dead, live = router.summary_rows()
    # Retired by the check of its unanswered request, not by the request's own time-out.
    assert dead["state"] == "dead" and "unanswered" in dead["dead_reason"], dead
    assert live["state"] == "live"


def test_with_no_worker_left_items_are_unscored_no_worker(services):
    router = _router(services)
    for proc, _ in services:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    items = _pool(EXAMPLES / "after.jsonl")[:3] + _pool(KERNELS / "pool.jsonl")[:3]
    entries = router.score(items)
    assert [e["id"] for e in entries] == [it["id"] for it in items]
    assert all(e["reward"] is None and not e["scored"] and e["reasons"][0]["code"] == "no-worker" for e in entries)


def test_a_chunk_held_by_a_dead_workers_sender_is_answered_when_no_worker_is_left():
    """Both workers die while one of their senders is still inside a request: the batch ends
    with every item answered ``no-worker``, never "lost" (the held chunk is answered too)."""
    import threading
    import time

    from aorlta_client.client import AorltaError
    from aorlta_client.router import Router, Worker

    workers = [Worker(f"http://127.0.0.1:{9 + n}", key=f"w{n}", gpus=1) for n in range(2)]
    router = Router(workers, qa_chunk=20, connections=1)
    router._kinds = {"t": "qa"}
    release = threading.Event()

    def held(items, profile=None):
        release.wait(30)  # the request is answered only after every worker is retired
        raise AorltaError(0, "unreachable", "connection reset")

    for w in workers:
        w.client.score = held
        w.is_alive = lambda: False

    def kill_all():
        time.sleep(0.5)
        for w in workers:
            router.retire(w, "killed")
        time.sleep(2.5)  # the batch ends while the sender still holds its chunk
        release.set()

    threading.Thread(target=kill_all, daemon=True).start()
    entries = router.score([{"id": "a", "task": "t", "completion": "x"}])
    assert [e["reward"] for e in entries] == [None]
    assert "no-worker" in json.dumps(entries[0])


def test_a_chunk_whose_request_failed_is_answered_when_its_worker_dies_before_giving_it_back():
    """The sender of a chunk whose request failed retires its worker and then gives the chunk
    back; a batch that ends in between (no worker left) must still answer the chunk. The hook
    holds the sender between the two steps until the batch is over, so the interleaving that
    lost items under load ("the router lost items [7, 9]") happens every time."""
    import threading

    from aorlta_client.client import AorltaError
    from aorlta_client.router import Router, Worker

    w = Worker("http://127.0.0.1:9", key="w0", gpus=0)
    router = Router([w], qa_chunk=2, connections=1)
    router._kinds = {"t": "qa"}

    def fail(items, profile=None):
        raise AorltaError(0, "unreachable", "connection reset")

    w.client.score = fail
    w.is_alive = lambda: False
    over = threading.Event()
    retire = router.retire
    held = []

    def retire_then_hold(worker, reason):
        retire(worker, reason)
        held.append(worker.key)
        over.wait(10)  # the sender, its worker dead, has not given its chunk back yet

    router.retire = retire_then_hold
    items = [{"id": f"i{n}", "task": "t", "completion": "x"} for n in range(3)]
    try:
        entries = router.score(items)
    finally:
        over.set()
    assert held == ["w0"], "the sender was held between retiring its worker and giving back"
    assert [e["id"] for e in entries] == ["i0", "i1", "i2"]
    assert all(e["reward"] is None and e["reasons"][0]["code"] == "no-worker" for e in entries), entries
