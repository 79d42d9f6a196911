"""OpenRLHF drop-in.

The service speaks OpenRLHF's remote reward shape itself, so the usual recipe needs no
Python: point the trainer at ``/get_reward`` and put the task ids in the label column::

    --reward.remote_url http://HOST:8787/get_reward --label_key task
    # (older OpenRLHF releases: --remote_rm_url http://HOST:8787/get_reward)

The service removes each prompt from the front of its query to get the completion. An entry
it cannot score gets the profile's ``unscored-value`` (0.0 by default) as its reward, and
``extra_logs`` carries per-sample ``scored``, ``unscored`` and ``timed_out`` flags (1.0 or 0.0)
that OpenRLHF logs with the batch.

OpenRLHF can also load a reward function file (``--reward.remote_url /path/to/openrlhf.py``,
older ``--remote_rm_url``): this file's :func:`reward_func` calls the same endpoint at
``$AORLTA_URL`` and returns torch tensors when torch is installed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from aorlta_client.client import Client, default_url

_client: Optional[Client] = None


def remote_url(host: str = "127.0.0.1", port: int = 8787) -> str:
    """The URL to give OpenRLHF's ``--reward.remote_url``."""
    return f"http://{host}:{port}/get_reward"


def reward_func(queries: List[str], prompts: List[str], labels: List[str], **_: Any) -> Dict[str, Any]:
    """OpenRLHF's reward function file interface, answered by the service."""
    global _client
    if _client is None:
        _client = Client(default_url())
    out = _client.get_reward(queries, prompts, labels)
    try:
        import torch  # type: ignore
    except ImportError:
        return out
    return {
        "rewards": torch.tensor(out["rewards"], dtype=torch.float32),
        "scores": torch.tensor(out["scores"], dtype=torch.float32),
        "extra_logs": {k: torch.tensor(v, dtype=torch.float32) for k, v in out["extra_logs"].items()},
    }
