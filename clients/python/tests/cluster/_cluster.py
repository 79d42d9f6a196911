"""Helpers shared by the Ray tests: paths, the shared service config, the pools."""

import importlib
import json
import os
import pathlib

import pytest

from aorlta_service import ROOT

KERNELS = ROOT / "examples" / "kernels"
QA = ROOT / "examples" / "qa"
CLIENT = ROOT / "clients" / "python"


def need(module: str):
    """Imports a module, or skips (fails when the trainer venv is required)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("AORLTA_TRAINERS_REQUIRED") == "1":
            pytest.fail(f"{module} is not importable in the trainer venv: {e}")
        pytest.skip(f"{module} is not installed (run scripts/trainer-venv.sh)")


def pool(path: pathlib.Path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


#: The service config every node runs: the Q&A and kernel examples' tasks and profiles. The
#: router's caller names the shared store and the GPUs.
CONFIG = (
    f"tasks: [{QA / 'tasks.jsonl'}, {KERNELS / 'tasks'}]\n"
    f"profiles: [{QA / 'profile.yaml'}, {KERNELS / 'profile.yaml'}]\n"
    "cache: {kind: none}\n"
    "lanes:\n  kernel: {workers: 2, queue-items: 256, item-timeout: 150s}\n"
)
