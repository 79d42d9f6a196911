"""Helpers shared by the Ray tests: paths, the shared service config, the pools."""

import json
import pathlib

from aorlta_service import ROOT, need  # noqa: F401 (need: imported from here by the tests)

KERNELS = ROOT / "examples" / "kernels"
QA = ROOT / "examples" / "qa"
CLIENT = ROOT / "clients" / "python"


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
