"""Helpers shared by the trainer tests."""

import importlib
import os
import pathlib

import pytest


def need(module: str):
    """Imports a trainer module, or skips (fails when the trainers are required)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("AORLTA_TRAINERS_REQUIRED") == "1":
            pytest.fail(f"{module} is not importable in the trainer venv: {e}")
        pytest.skip(f"{module} is not installed (run scripts/trainer-venv.sh)")


def client_file(name: str) -> str:
    """The drop-in file a trainer loads by path."""
    import aorlta_client

    return str(pathlib.Path(aorlta_client.__file__).parent / f"{name}.py")
