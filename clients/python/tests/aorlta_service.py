"""Starting and stopping a real ``aorlta serve`` on loopback for the tests (the binary is
``$AORLTA_BIN``, default ``target/debug/aorlta``; build it with ``cargo build -p aorlta``)."""

import importlib
import os
import pathlib
import signal
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "qa"


def need(module: str):
    """Imports a module of the trainer venv, or skips (fails when that venv is required:
    ``AORLTA_TRAINERS_REQUIRED=1``, what ``scripts/test`` sets there)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("AORLTA_TRAINERS_REQUIRED") == "1":
            pytest.fail(f"{module} is not importable in the trainer venv: {e}")
        pytest.skip(f"{module} is not installed (run scripts/trainer-venv.sh)")


def _binary() -> pathlib.Path:
    b = pathlib.Path(os.environ.get("AORLTA_BIN", ROOT / "target" / "debug" / "aorlta"))
    if not b.exists():
        pytest.exit(f"{b} does not exist: run `cargo build -p aorlta` or set AORLTA_BIN", 2)
    return b


def start_server(d: pathlib.Path, extra: str = "", config_text: str = ""):
    """Starts ``aorlta serve`` over the Q&A example (plus ``extra`` config lines), or over
    ``config_text`` when given, in folder ``d``; returns the process and its URL."""
    config = d / "serve.yaml"
    config.write_text(
        config_text
        or f"tasks: {EXAMPLES / 'tasks.jsonl'}\n"
        f"profiles: [{EXAMPLES / 'profile.yaml'}]\n"
        "cache: {kind: none}\n" + extra
    )
    ready = d / "addr"
    proc = subprocess.Popen(
        [str(_binary()), "serve", "--config", str(config), "--bind", "127.0.0.1:0", "--ready-file", str(ready)],
        stdout=subprocess.DEVNULL,
        env={**os.environ, "RUST_LOG": "warn"},
    )
    t0 = time.monotonic()
    while not ready.exists():
        if proc.poll() is not None:
            pytest.fail(f"aorlta serve exited with {proc.returncode} before listening")
        if time.monotonic() - t0 > 30:
            proc.kill()
            pytest.fail("aorlta serve did not start in 30 s")
        time.sleep(0.01)
    return proc, "http://" + ready.read_text().strip()


def stop_server(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, "the service drains and exits 0 on SIGTERM"


