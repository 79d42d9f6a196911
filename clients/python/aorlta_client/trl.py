"""TRL drop-in: reward functions for ``GRPOTrainer(reward_funcs=[...])``.

TRL calls a reward function as ``f(prompts=..., completions=..., completion_ids=...,
**columns, trainer_state=..., log_extra=..., log_metric=...)`` where each dataset column arrives
as a list. :func:`reward_func` (synchronous) and :func:`async_reward_func` (TRL runs ``async def``
reward functions concurrently on its own event loop) build one that answers one float per
completion, or ``None`` for a completion the service could not score. Each row's task comes
from its columns in ``task_mode`` (:mod:`aorlta_client.tasks`):

- ``"auto"`` (the default): the column ``task_key`` (default ``"task"``) when the dataset has
  it, a value that is a task id the service loaded being that task and any other the reference
  answer of a Q&A task of its own; else the column ``answer_key`` (default ``"answer"``), whose
  values are answers (GSM8K's worked solution ending ``#### n`` is one, with a profile that
  reads that form);
- ``"id"``: ``task_key`` holds task ids; ``"answer"``: ``answer_key`` holds answers.

Either key may be dotted (``answer_key="reward_model.ground_truth"``, verl's layout): a path
into a column of objects. An answer that is verl's ``reward_model`` object is read as its
``ground_truth``. A key no column has, or a dotted key no row of the batch holds, raises
``KeyError`` naming it.

The row's prompt is sent with an answer-mode task (a Q&A reward does not read it).

- A row whose task is missing (``None``) or neither a task id nor an inline task object gets
  ``None`` without a request.
- Completions may be plain text or conversational: the last message's ``content``, which may
  be a string, a list of content parts (their ``text`` parts are joined) or ``None`` (empty).
- Through TRL's ``log_metric``, each call logs ``aorlta/unscored_frac``,
  ``aorlta/timed_out_frac`` and ``aorlta/answer_mode_frac`` (fractions of the batch's
  completions).

TRL turns ``None`` into NaN and adds the reward functions up with ``nansum``. Since TRL 1.6 a
completion for which *every* reward function returns ``None`` is left out of its group's mean
and standard deviation (``grpo_trainer.py``), so an unscored completion does not move the
baseline of the others; TRL warns about such rows.

    from aorlta_client.trl import reward_func
    trainer = GRPOTrainer(model=..., reward_funcs=[reward_func()], train_dataset=ds, ...)
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from aorlta_client import tasks as _tasks
from aorlta_client.client import AsyncClient, Client


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], Mapping):
        content = completion[-1].get("content")
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type", "text") == "text"
            )
        return str(content)
    raise TypeError(f"a completion is a string or a list of messages, not {type(completion).__name__}")


def _ground_truth(value: Any) -> Any:
    """verl's ``reward_model`` object (``{"style", "ground_truth"}``) as its ground truth; any
    other value as it is."""
    if isinstance(value, Mapping) and "ground_truth" in value and "id" not in value:
        return value["ground_truth"]
    return value


def _has(kwargs: Dict[str, Any], key: str) -> bool:
    """Whether ``key`` names a column: itself, or (a dotted key) a column and a path into it."""
    return key in kwargs or ("." in key and key.split(".", 1)[0] in kwargs)


def _column(kwargs: Dict[str, Any], key: str) -> List[Any]:
    """The values of column ``key``; a dotted key (``reward_model.ground_truth``, verl's layout)
    reads a path into a column of objects, ``None`` where a row lacks it. A dotted key that no
    row holds raises ``KeyError`` naming it: every row would otherwise be sent nothing."""
    if key in kwargs:
        return list(kwargs[key])
    head, path = key.split(".", 1)
    out: List[Any] = []
    for v in kwargs[head]:
        for part in path.split("."):
            v = v.get(part) if isinstance(v, Mapping) else None
        out.append(v)
    if out and all(v is None for v in out):
        raise KeyError(f"no row of the batch has `{key}`: the column `{head}` holds no `{path}`")
    return out


def _usable(task: Any) -> bool:
    return (isinstance(task, str) and task.strip() != "") or (isinstance(task, Mapping) and "id" in task)


class _Columns:
    """Where a reward function's rows find their tasks: ``task_key``, ``answer_key``, the mode,
    and the service's task ids (asked once, in auto mode)."""

    def __init__(self, task_key: str, answer_key: str, mode: str, list_tasks: Callable[[], List[Dict[str, Any]]]):
        self.task_key, self.answer_key, self.mode = task_key, answer_key, _tasks.check_mode(mode)
        self.list_tasks = list_tasks
        self._known: Optional[Set[str]] = None

    def known(self) -> Set[str]:
        if self._known is None:
            self._known = {str(t.get("id")) for t in self.list_tasks()}
        return self._known

    def requests(self, completions: List[Any], kwargs: Dict[str, Any]) -> Tuple[List[int], List[Dict[str, Any]], int]:
        """The rows sent, their items, and how many are in answer mode."""
        mode, key = self.mode, self.task_key
        if mode == "answer" or (mode == "auto" and not _has(kwargs, key) and _has(kwargs, self.answer_key)):
            key, mode = self.answer_key, "answer"
        if not _has(kwargs, key):
            raise KeyError(
                f"the dataset has no `{key}` column (task_mode {self.mode!r}: pass task_key= or "
                f"answer_key= to reward_func to name the column with task ids or answers)"
            )
        prompts = kwargs.get("prompts") or [""] * len(completions)
        rows, items, answers = [], [], 0
        for i, (t, c, p) in enumerate(zip(_column(kwargs, key), completions, prompts)):
            if mode == "answer":
                t = _ground_truth(t)
            if mode == "answer" and t is not None and not isinstance(t, Mapping):
                t = str(t)
            if not _usable(t):
                continue
            task, answer = _tasks.resolve(t, mode, p, self.known)
            rows.append(i)
            items.append({"task": task, "completion": _text(c)})
            answers += answer
        return rows, items, answers


def _answer(n: int, rows: List[int], entries: Sequence[Mapping[str, Any]], kwargs: Dict[str, Any], answers: int = 0) -> List[Optional[float]]:
    out: List[Optional[float]] = [None] * n
    timed_out = 0
    for i, e in zip(rows, entries):
        if e.get("scored") and e.get("reward") is not None:
            out[i] = float(e["reward"])
        elif any(r.get("code") == "timed-out" for r in e.get("reasons") or []):
            timed_out += 1
    log_metric = kwargs.get("log_metric")
    if callable(log_metric) and n:
        log_metric("aorlta/unscored_frac", sum(r is None for r in out) / n)
        log_metric("aorlta/timed_out_frac", timed_out / n)
        log_metric("aorlta/answer_mode_frac", answers / n)
    return out


def reward_func(
    url: Optional[str] = None,
    *,
    profile: Optional[str] = None,
    task_key: str = "task",
    client: Optional[Client] = None,
    on_unreachable: str = "raise",
    answer_key: str = "answer",
    task_mode: str = "auto",
) -> Callable[..., List[Optional[float]]]:
    """A TRL reward function backed by the service at ``url`` (``$AORLTA_URL`` by default).
    ``on_unreachable="unscored"`` answers ``None`` when the service cannot be reached within
    the client's retry budget instead of raising."""
    c = client or Client(url, profile=profile, on_unreachable=on_unreachable)
    cols = _Columns(task_key, answer_key, task_mode, c.tasks)

    def aorlta(completions: List[Any], **kwargs: Any) -> List[Optional[float]]:
        rows, items, answers = cols.requests(completions, kwargs)
        entries = c.score(items) if items else []
        return _answer(len(completions), rows, entries, kwargs, answers)

    aorlta.__name__ = "aorlta"
    return aorlta


def async_reward_func(
    url: Optional[str] = None,
    *,
    profile: Optional[str] = None,
    task_key: str = "task",
    on_unreachable: str = "raise",
    connections: int = 8,
    answer_key: str = "answer",
    task_mode: str = "auto",
) -> Callable[..., Awaitable[List[Optional[float]]]]:
    """As :func:`reward_func`, as an ``async def``: TRL awaits it on its own event loop,
    concurrently with its other async reward functions. One :class:`AsyncClient` per loop."""
    clients: Dict[int, AsyncClient] = {}
    cols = _Columns(task_key, answer_key, task_mode, lambda: Client(url).tasks())

    async def aorlta(completions: List[Any], **kwargs: Any) -> List[Optional[float]]:
        loop = id(asyncio.get_running_loop())
        if loop not in clients:
            clients[loop] = AsyncClient(url, profile=profile, on_unreachable=on_unreachable, connections=connections)
        rows, items, answers = cols.requests(completions, kwargs)
        entries = await clients[loop].score(items) if items else []
        return _answer(len(completions), rows, entries, kwargs, answers)

    aorlta.__name__ = "aorlta"
    return aorlta
