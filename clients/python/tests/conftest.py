"""Starts a real ``aorlta serve`` on loopback for the tests (``aorlta_service``), over the Q&A
example's tasks and profile, and checks that it drains and exits 0 on SIGTERM at the end."""

import pytest

from aorlta_service import EXAMPLES, start_server, stop_server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    proc, url = start_server(tmp_path_factory.mktemp("serve"))
    yield url
    stop_server(proc)


@pytest.fixture(scope="session")
def tasks():
    import json

    return [json.loads(line) for line in (EXAMPLES / "tasks.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def kernel_server(tmp_path_factory):
    """A second service: the kernel tasks with the speed profile on the fake device, playing the
    scripted episode's three candidates (``kernel_episode``)."""
    import kernel_episode

    d = tmp_path_factory.mktemp("serve-kernels")
    proc, url = start_server(d, config_text=kernel_episode.config(d))
    yield url
    stop_server(proc)
