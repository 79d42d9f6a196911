"""The client's types as a type checker reads them: ``mypy --strict`` (the version pinned in
``tests/requirements.txt``) is clean over ``aorlta_client``, and catches a reward entry's
``reward`` (``float | None``) taken for an ``int``, which a ``Dict[str, Any]`` never would.
Skipped without mypy, a failure under ``CI``."""

import os
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]

WRONG = '''from aorlta_client import Client


def total(c: Client) -> int:
    entry = c.score_one("qa-001", "\\\\boxed{391}")
    reward: int = entry["reward"]
    return reward
'''

RIGHT = '''from typing import Optional

from aorlta_client import Client


def total(c: Client) -> float:
    entry = c.score_one("qa-001", "\\\\boxed{391}")
    reward: Optional[float] = entry["reward"]
    return reward if reward is not None else 0.0
'''


def _mypy(tmp_path, *targets):
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI is set and mypy is not installed (clients/python/tests/requirements.txt)")
        pytest.skip("mypy is not installed (pip install -r clients/python/tests/requirements.txt)")
    # The package's own config (pyproject.toml) from its folder; the sources, not an installed copy.
    env = {**os.environ, "MYPYPATH": str(PACKAGE)}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), *map(str, targets)],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_mypy_strict_is_clean_over_the_client(tmp_path):
    run = _mypy(tmp_path, "aorlta_client")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found"), run.stdout


def test_mypy_catches_an_int_for_a_reward_that_is_a_float_or_none(tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG)
    right = tmp_path / "right.py"
    right.write_text(RIGHT)
    run = _mypy(tmp_path, wrong)
    assert run.returncode == 1, run.stdout + run.stderr
    line = WRONG.splitlines().index('    reward: int = entry["reward"]') + 1
    assert f'wrong.py:{line}: error: Incompatible types in assignment (expression has type "float | None", variable has type "int")' in run.stdout, run.stdout
    ok = _mypy(tmp_path, right)
    assert ok.returncode == 0, ok.stdout + ok.stderr
