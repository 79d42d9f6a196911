"""The bearer token: the clients send it (``token=`` or ``$AORLTA_TOKEN``) to a service that
requires it, and the router's HTTP front requires it too, refusing to listen beyond loopback
without one."""

import asyncio
import base64
import json
import urllib.request

import pytest

from aorlta_client import AorltaError, AsyncClient, Client
from aorlta_service import start_server, stop_server

TOKEN = "a-token-for-the-client-tests-7d3e"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    d = tmp_path_factory.mktemp("guarded")
    (d / "token").write_text(TOKEN + "\n")
    proc, url = start_server(d, f"auth: {{token-file: {d / 'token'}}}\n")
    yield url
    stop_server(proc)


def test_the_client_sends_the_token_it_is_given(guarded, monkeypatch):
    monkeypatch.delenv("AORLTA_TOKEN", raising=False)
    with pytest.raises(AorltaError) as e:
        Client(guarded).score([("qa-001", "\\boxed{391}")])
    assert (e.value.status, e.value.code) == (401, "unauthorized")
    with pytest.raises(AorltaError) as e:
        Client(guarded, token="not-the-token-of-this-service").tasks()
    assert e.value.status == 401
    c = Client(guarded, token=TOKEN)
    assert c.score([("qa-001", "\\boxed{391}")])[0]["reward"] == 1.0
    assert len(c.tasks()) == 60
    assert TOKEN not in repr(c)
    # Health and metrics stay open.
    assert Client(guarded).health()["status"] == "ok"
    assert "aorlta_requests_total" in Client(guarded).metrics()


def test_the_token_comes_from_the_environment(guarded, monkeypatch):
    monkeypatch.setenv("AORLTA_TOKEN", TOKEN)
    assert Client(guarded).score_one("qa-001", "\\boxed{391}")["reward"] == 1.0

    async def run():
        async with AsyncClient(guarded) as c:
            return await c.score([("qa-002", "\\boxed{-27}")] * 3)

    assert [e["reward"] for e in asyncio.run(run())] == [1.0] * 3
    # An explicit empty token sends none.
    with pytest.raises(AorltaError) as e:
        Client(guarded, token="").score_one("qa-001", "\\boxed{391}")
    assert e.value.status == 401


def test_the_async_client_is_refused_without_it(guarded, monkeypatch):
    monkeypatch.delenv("AORLTA_TOKEN", raising=False)

    async def run():
        async with AsyncClient(guarded) as c:
            return await c.score([("qa-001", "\\boxed{391}")])

    with pytest.raises(AorltaError) as e:
        asyncio.run(run())
    assert (e.value.status, e.value.code) == (401, "unauthorized")


def test_a_token_with_spaces_is_refused_before_any_request():
    with pytest.raises(ValueError, match="without spaces"):
        Client("http://127.0.0.1:1", token="two words")


def test_the_front_requires_the_token_and_sends_it_to_its_workers(guarded, monkeypatch):
    monkeypatch.delenv("AORLTA_TOKEN", raising=False)
    from aorlta_client.front import serve_front
    from aorlta_client.router import Router, Worker

    router = Router([Worker(guarded, key="w", token=TOKEN)], qa_chunk=4)
    front = serve_front(router, "127.0.0.1", 0, token=TOKEN)
    try:
        for call in (lambda c: c.score([("qa-001", "\\boxed{391}")]), lambda c: c.tasks(),
                     lambda c: c.get_reward(["\\boxed{391}"], None, ["qa-001"])):
            with pytest.raises(AorltaError) as e:
                call(Client(front.url, retries=0))
            assert (e.value.status, e.value.code) == (401, "unauthorized")
            with pytest.raises(AorltaError) as e:
                call(Client(front.url, retries=0, token=TOKEN + "x"))
            assert e.value.status == 401
        c = Client(front.url, token=TOKEN)
        assert [e["reward"] for e in c.score([("qa-001", "\\boxed{391}")] * 5)] == [1.0] * 5
        # The token in the URL, as OpenRLHF's remote reward URL carries it (Basic authentication).
        host = front.url.split("//")[1]
        basic = base64.b64encode(f"aorlta:{TOKEN}".encode()).decode()
        req = urllib.request.Request(
            f"http://{host}/get_reward", data=json.dumps({"query": ["\\boxed{391}"], "labels": ["qa-001"]}).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Basic {basic}"},
        )
        assert json.loads(urllib.request.urlopen(req, timeout=30).read())["rewards"] == [1.0]
        assert c.get_reward(["\\boxed{391}"], None, ["qa-001"])["rewards"] == [1.0]
        status, _, body = Client(front.url, retries=0).request("GET", "/healthz")
        assert status == 200 and json.loads(body)["live_workers"] == 1, "health stays open"
    finally:
        front.close()


def test_the_front_refuses_to_listen_beyond_loopback_without_a_token(guarded):
    from aorlta_client.front import is_loopback, serve_front
    from aorlta_client.router import Router, Worker

    router = Router([Worker(guarded, key="w", token=TOKEN)])
    with pytest.raises(ValueError, match="without a token"):
        serve_front(router, "0.0.0.0", 0)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.1")
