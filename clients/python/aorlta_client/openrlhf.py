"""OpenRLHF drop-in.

The service speaks OpenRLHF's remote reward shape itself, so the usual recipe needs no
Python: point the trainer at ``/get_reward`` and put the task ids in the label column::

    # OpenRLHF 0.10.2 and later (0.11.0 checked):
    --reward.remote_url http://HOST:8787/get_reward --data.label_key task
    # before 0.10.2:
    --remote_rm_url http://HOST:8787/get_reward --label_key task

The service removes each prompt (and end/padding tokens) from its query to get the
completion, accepting a left-truncated prompt. ``rewards`` is the entry's reward, or the
profile's ``unscored-value`` (0.0 by default) when unscored; ``scores`` is correctness in
[0, 1] (1.0 when every rewarded leg is clean), which OpenRLHF's dynamic filtering reads;
``extra_logs`` carries per-sample ``scored``, ``unscored`` and ``timed_out`` flags. OpenRLHF
sends one sample per request: the service queues it (``limits.queue-wait``) rather than
refusing it when full. An empty or unknown label is refused (422 ``unknown-label``).

OpenRLHF can also load a reward function file (the same flag given a ``.py`` path): this
file's :func:`reward_func` calls the same endpoint at ``$AORLTA_URL`` and returns torch tensors
when torch is installed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, cast

from aorlta_client.client import Client, default_url

_client: Optional[Client] = None


def remote_url(host: str = "127.0.0.1", port: int = 8787) -> str:
    """The URL to give OpenRLHF's ``--reward.remote_url``."""
    return f"http://{host}:{port}/get_reward"


def reward_func(queries: List[str], prompts: List[str], labels: List[Any], **_: Any) -> Dict[str, Any]:
    """OpenRLHF's reward function file interface, answered by the service."""
    global _client
    if _client is None:
        _client = Client(default_url())
    # verl's `reward_model` objects (from `--data.label_key reward_model`): their ground truth.
    labels = [lab.get("ground_truth", lab) if isinstance(lab, dict) else lab for lab in labels]
    out = _client.get_reward(queries, prompts, labels)
    try:
        import torch
    except ImportError:
        return cast(Dict[str, Any], out)
    return {
        "rewards": torch.tensor(out["rewards"], dtype=torch.float32),
        "scores": torch.tensor(out["scores"], dtype=torch.float32),
        "extra_logs": {k: torch.tensor(v, dtype=torch.float32) for k, v in out["extra_logs"].items()},
    }
