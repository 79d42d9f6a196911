"""The sync and async clients against the real service."""

import asyncio
import http.server
import json
import threading
import time

import pytest

from aorlta_client import AorltaError, AsyncClient, Client


def test_default_ids_do_not_depend_on_how_a_batch_is_split(server):
    items = [("qa-001", f"\\boxed{{{n}}}") for n in range(10)]
    assert [e["id"] for e in Client(server, max_batch=3).score(items)] == [f"qa-001#{n}" for n in range(10)]


def test_score_keeps_order_ids_and_splits_large_batches(server, tasks):
    c = Client(server, max_batch=7)
    items = [
        {"id": f"i{n}", "task": t["id"], "completion": f"The answer is \\boxed{{{t['answer']}}}."}
        for n, t in enumerate(tasks[:20])
    ]
    entries = c.score(items)
    assert [e["id"] for e in entries] == [f"i{n}" for n in range(20)]
    assert [e["task"] for e in entries] == [t["id"] for t in tasks[:20]]
    for e in entries:
        assert [leg["name"] for leg in e["legs"]] == ["parse", "ref.exact", "ref.normalised"]
        assert (e["scored"], e["reward"]) == (True, 1.0), e
    # Sent in one request, the same items get the same entries.
    whole = Client(server).score(items)
    strip = lambda es: [{k: v for k, v in e.items() if k != "elapsed_s"} | {"legs": [{k: v for k, v in l.items() if k != "elapsed_s"} for l in e["legs"]]} for e in es]
    assert strip(whole) == strip(entries)


def test_pairs_inline_tasks_and_single_items(server):
    c = Client(server)
    [e] = c.score([("qa-001", "\\boxed{391}")])
    assert e["id"] == "qa-001#0" and e["task"] == "qa-001"
    e = c.score_one({"id": "mine", "prompt": "1+1?", "answer": "2"}, "\\boxed{2}", id="x")
    assert e["id"] == "x" and e["task"] == "mine" and len(e["legs"]) == 3
    e = c.score_one("no-such-task", "\\boxed{2}")
    assert e["scored"] is False and e["reward"] is None
    assert e["reasons"][0]["code"] == "unknown-task"


def test_read_only_endpoints(server, tasks):
    c = Client(server)
    assert c.health()["status"] == "ok"
    listed = c.tasks()
    assert [t["id"] for t in listed] == [t["id"] for t in tasks]
    assert all("answer" not in t for t in listed)
    assert c.profiles()["default"] == "qa"
    assert "aorlta_requests_total" in c.metrics()


def test_refusals_raise_with_the_service_code(server):
    c = Client(server)
    with pytest.raises(AorltaError) as e:
        c.score([("qa-001", "x")], profile="nope")
    assert (e.value.status, e.value.code) == (422, "unknown-profile")
    with pytest.raises(AorltaError) as e:
        c.score([])
    assert e.value.code == "empty-batch"
    status, _, body = c.request("POST", "/v1/score", {"items": "no"})
    assert status == 422 and json.loads(body)["error"]["code"] == "invalid-request"
    assert c.health()["status"] == "ok", "the service keeps serving"


def test_async_client_matches_the_sync_one(server, tasks):
    items = [(t["id"], f"I get \\boxed{{{t['answer']}}}") for t in tasks]

    async def go():
        async with AsyncClient(server, connections=4, max_batch=16) as c:
            many = await asyncio.gather(*(c.score(items[i : i + 10]) for i in range(0, len(items), 10)))
            one = await c.score_one("qa-002", "\\boxed{-27}")
            health = await c.health()
            return [e for batch in many for e in batch], one, health

    entries, one, health = asyncio.run(go())
    sync = Client(server).score(items)
    key = lambda e: (e["task"], e["reward"], e["scored"], [leg["state"] for leg in e["legs"]])
    assert [key(e) for e in entries] == [key(e) for e in sync]
    assert one["task"] == "qa-002"
    assert health["status"] == "ok"


class _Busy(http.server.BaseHTTPRequestHandler):
    """Answers 503 with Retry-After: 0 twice, then a score answer."""

    calls = 0
    retry_after = "0"

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).calls += 1
        if type(self).calls <= 2:
            body = json.dumps({"error": {"code": "overloaded", "message": "full", "status": 503}}).encode()
            self.send_response(503)
            self.send_header("Retry-After", type(self).retry_after)
        else:
            body = json.dumps({"results": [{"id": "a", "reward": 1.0, "scored": True}]}).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_batch_over_the_queue_is_split_not_refused(tmp_path):
    # The real service with a Q&A queue of 8: a batch of 20 is answered in pieces.
    import os, pathlib, signal, subprocess, time

    root = pathlib.Path(__file__).resolve().parents[3]
    ex = root / "examples" / "qa"
    cfg = tmp_path / "serve.yaml"
    cfg.write_text(
        f"tasks: {ex / 'tasks.jsonl'}\nprofiles: [{ex / 'profile.yaml'}]\ncache: {{kind: none}}\n"
        "lanes:\n  qa: {workers: 1, queue-items: 8, item-timeout: 30s}\n"
    )
    ready = tmp_path / "addr"
    binary = os.environ.get("AORLTA_BIN", str(root / "target" / "debug" / "aorlta"))
    proc = subprocess.Popen([binary, "serve", "--config", str(cfg), "--bind", "127.0.0.1:0", "--ready-file", str(ready)], stdout=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while not ready.exists():
            assert time.monotonic() - t0 < 30 and proc.poll() is None
            time.sleep(0.01)
        url = "http://" + ready.read_text().strip()
        c = Client(url)
        entries = c.score([("qa-001", f"\\boxed{{{n}}}") for n in range(20)])
        assert [e["id"] for e in entries] == [f"qa-001#{n}" for n in range(20)]
        assert c.max_batch <= 8
        health = c.health()
        assert health["queue_items"]["qa"] == 8 and health["item_timeout_s"]["qa"] == 30.0
        # The client waits longer than the service's longest item limit.
        assert c.timeout > health["item_timeout_s"]["kernel"]
        entries = asyncio.run(AsyncClient(url).score([("qa-001", f"\\boxed{{{n}}}") for n in range(20)]))
        assert len(entries) == 20
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_items_without_a_usable_task_are_answered_unscored_without_a_request(server):
    items = [
        {"task": None, "completion": "\\boxed{1}"},
        {"task": 7, "completion": "\\boxed{1}"},
        ("qa-001", "\\boxed{391}"),
        {"task": "", "completion": "x"},
    ]
    for entries in (Client(server).score(items), asyncio.run(AsyncClient(server).score(items))):
        assert [e["id"] for e in entries] == ["None#0", "7#1", "qa-001#2", "#3"]
        assert [e["reasons"][0]["code"] for e in entries if not e["scored"]] == ["no-task"] * 3
        assert (entries[2]["scored"], entries[2]["reward"]) == (True, 1.0)
        assert all(e["reward"] is None for n, e in enumerate(entries) if n != 2)
    # Nothing is sent for them: a service that cannot be reached is never asked.
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    bad = [it for it in items if not isinstance(it, tuple)]
    assert [e["reasons"][0]["code"] for e in Client(f"http://127.0.0.1:{port}", retry_budget=0.2).score(bad)] == ["no-task"] * 3


def test_an_unreachable_service_can_answer_unscored():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(AorltaError) as e:
        Client(url, retry_budget=0.5).score([("t", "x")])
    assert e.value.code == "unreachable"
    [entry] = Client(url, retry_budget=0.5, on_unreachable="unscored").score([("t", "x")])
    assert (entry["scored"], entry["reward"], entry["reasons"][0]["code"]) == (False, None, "unreachable")
    [entry] = asyncio.run(AsyncClient(url, retry_budget=0.5, on_unreachable="unscored").score([("t", "x")]))
    assert entry["reasons"][0]["code"] == "unreachable"


def test_a_503_is_retried_after_retry_after():
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Busy)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        assert Client(url, retries=3).score([("t", "x")])[0]["reward"] == 1.0
        assert _Busy.calls == 3
        _Busy.calls = 0
        with pytest.raises(AorltaError) as e:
            Client(url, retries=1).score([("t", "x")])
        assert e.value.code == "overloaded"
        # Within a time budget: a Retry-After longer than what is left is not waited for.
        _Busy.calls, _Busy.retry_after = 0, "30"
        t0 = time.monotonic()
        with pytest.raises(AorltaError):
            Client(url, retry_budget=2.0).score([("t", "x")])
        assert time.monotonic() - t0 < 5 and _Busy.calls == 1
    finally:
        srv.shutdown()


class _Slow(http.server.BaseHTTPRequestHandler):
    """A service whose kernel items may take 400 s: `/healthz` says so, and a completion
    `slow` comes back unscored `timed-out`."""

    def _send(self, doc):
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send({"status": "ok", "item_timeout_s": {"qa": 10.0, "kernel": 400.0}, "queue_wait_s": 20.0})

    def do_POST(self):
        items = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["items"]
        out = []
        for it in items:
            if it["completion"] == "slow":
                out.append({"id": it["id"], "reward": None, "scored": False, "reasons": [{"code": "timed-out", "detail": "over 400 s"}]})
            else:
                out.append({"id": it["id"], "reward": 1.0, "scored": True, "reasons": []})
        self._send({"results": out})

    def log_message(self, *args):
        pass


def _serve(handler):
    srv = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def test_the_timeout_is_raised_above_the_services_item_limit_and_queue_wait():
    srv, url = _serve(_Slow)
    try:
        for c in (Client(url, timeout=60.0), AsyncClient(url, timeout=60.0)):
            run = c.score([("t", "x")]) if isinstance(c, Client) else asyncio.run(c.score([("t", "x")]))
            assert run[0]["reward"] == 1.0
            assert c.timeout == 400.0 + 20.0 + 30.0, c.timeout
        # A timeout already long enough is kept.
        c = Client(url, timeout=1000.0)
        c.score([("t", "x")])
        assert c.timeout == 1000.0
    finally:
        srv.shutdown()


def test_trl_logs_the_timed_out_fraction():
    from aorlta_client.trl import reward_func

    srv, url = _serve(_Slow)
    try:
        logged = {}
        f = reward_func(url, task_mode="id")
        rewards = f(prompts=["p"] * 4, completions=["a", "slow", "slow", "b"], task=["t"] * 4,
                    log_metric=lambda k, v: logged.__setitem__(k, v))
        assert rewards == [1.0, None, None, 1.0]
        assert logged == {"aorlta/unscored_frac": 0.5, "aorlta/timed_out_frac": 0.5, "aorlta/answer_mode_frac": 0.0}
    finally:
        srv.shutdown()


def test_the_async_client_waits_out_retry_after_too():
    _Busy.calls, _Busy.retry_after = 0, "0"
    srv, url = _serve(_Busy)
    try:
        [e] = asyncio.run(AsyncClient(url, retries=3).score([("t", "x")]))
        assert e["reward"] == 1.0 and _Busy.calls == 3
        # A Retry-After longer than the budget left is not waited for.
        _Busy.calls, _Busy.retry_after = 0, "30"
        t0 = time.monotonic()
        with pytest.raises(AorltaError):
            asyncio.run(AsyncClient(url, retry_budget=2.0).score([("t", "x")]))
        assert time.monotonic() - t0 < 5 and _Busy.calls == 1
    finally:
        _Busy.retry_after = "0"
        srv.shutdown()


def test_the_typed_entry_has_the_keys_the_service_describes(server):
    import typing
    import urllib.request

    from aorlta_client import types

    with urllib.request.urlopen(server + "/openapi.json", timeout=30) as resp:
        schemas = json.loads(resp.read())["components"]["schemas"]
    for name, typed in [
        ("RewardEntry", types.RewardEntry),
        ("LegResult", types.LegResult),
        ("Reason", types.Reason),
        ("Parts", types.Parts),
        ("VersionIdentity", types.VersionIdentity),
        ("GetRewardResponse", types.GetRewardAnswer),
    ]:
        hints = typing.get_type_hints(typed)
        assert set(hints) == set(schemas[name]["properties"]), name
        # A key the schema requires is never optional in the type.
        assert not set(typed.__optional_keys__) & set(schemas[name].get("required", [])), name
    assert typing.get_type_hints(types.RewardEntry)["reward"] == typing.Optional[float]
    # What a client gets is what the type says.
    entry = Client(server).score_one("qa-001", "\\boxed{391}")
    assert set(entry) <= set(typing.get_type_hints(types.RewardEntry))
    assert set(types.RewardEntry.__required_keys__) <= set(entry)


def test_the_ray_module_without_its_extra_names_the_extra():
    import subprocess
    import sys

    code = "import sys; sys.modules['ray'] = None; import aorlta_client.ray"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0
    assert "pip install 'aorlta-client[ray]'" in r.stderr, r.stderr
