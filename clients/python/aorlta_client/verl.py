"""verl drop-in: a ``compute_score`` for verl's custom reward function.

verl maps a reward to a number, so an unscored entry (``reward: null``) becomes
``unscored_score`` (default 0.0) and the extra info says so: every answer is a dict
``{"score": float, "aorlta_mask": 1.0 | 0.0}`` where ``aorlta_mask`` is 0.0 when the score is
the stand-in. verl copies the dict's other keys into ``reward_extra_info`` (one list per key,
logged with the batch); mask those samples out of your loss or metrics with it.

The task id is the sample's ``reward_model.ground_truth``; ``extra_info["aorlta_task"]`` (an
id or an inline task object) takes precedence when present.

Single form (verl's ``naive`` reward manager)::

    custom_reward_function.path=<site-packages>/aorlta_client/verl.py
    custom_reward_function.name=compute_score

Batch form (``reward_model.reward_manager=batch``, one request per batch)::

    custom_reward_function.name=compute_score_batch

The service URL is ``$AORLTA_URL`` (default ``http://127.0.0.1:8787``), or pass ``url=`` (and
``profile=``, ``unscored_score=``) through ``custom_reward_function.reward_kwargs``. This file
uses absolute imports because verl loads it by path.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Sequence

from aorlta_client.client import Client, default_url

log = logging.getLogger("aorlta_client.verl")

_clients: Dict[str, Client] = {}


def _client(url: Optional[str]) -> Client:
    u = url or default_url()
    if u not in _clients:
        _clients[u] = Client(u)
    return _clients[u]


def _task(ground_truth: Any, extra_info: Optional[dict]) -> Any:
    if isinstance(extra_info, dict) and extra_info.get("aorlta_task") is not None:
        return extra_info["aorlta_task"]
    return ground_truth


def to_score(entry: Dict[str, Any], unscored_score: float = 0.0) -> Dict[str, Any]:
    """A reward entry as verl's score dict."""
    if entry.get("scored") and entry.get("reward") is not None:
        return {"score": float(entry["reward"]), "aorlta_mask": 1.0}
    codes = [r.get("code") for r in entry.get("reasons", [])]
    log.debug("unscored %s (task %s): %s", entry.get("id"), entry.get("task"), codes)
    return {"score": float(unscored_score), "aorlta_mask": 0.0}


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Optional[dict] = None,
    *,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    **_: Any,
) -> Dict[str, Any]:
    """verl's single form: the score of one response."""
    entry = _client(url).score_one(_task(ground_truth, extra_info), solution_str, profile=profile)
    return to_score(entry, unscored_score)


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Optional[dict]]] = None,
    *,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    **_: Any,
) -> List[Dict[str, Any]]:
    """verl's batch form: the scores of a batch, in order, from one request per
    ``max_batch`` items."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    items = [
        {"task": _task(gt, info), "completion": s}
        for s, gt, info in zip(solution_strs, ground_truths, infos)
    ]
    entries = _client(url).score(items, profile=profile)
    return [to_score(e, unscored_score) for e in entries]
