"""TRL drop-in: a reward function for ``GRPOTrainer(reward_funcs=[...])``.

TRL calls a reward function as ``f(prompts=..., completions=..., **columns)`` where each
dataset column arrives as a list. :func:`reward_func` builds one that reads the task id from
the column ``task_key`` (default ``"task"``) and answers one float per completion, or ``None``
for an entry the service could not score. TRL turns ``None`` into NaN and sums the reward
functions with ``nansum``, so an unscored completion adds nothing from this function; when
every reward function returns ``None`` for a completion, TRL warns and its total reward is 0.

    from aorlta_client.trl import reward_func
    trainer = GRPOTrainer(model=..., reward_funcs=[reward_func()], train_dataset=ds, ...)

Conversational completions (lists of ``{"role", "content"}`` messages) are scored on their
last message's content.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from aorlta_client.client import Client


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    raise TypeError(f"a completion is a string or a list of messages, not {type(completion).__name__}")


def reward_func(
    url: Optional[str] = None,
    *,
    profile: Optional[str] = None,
    task_key: str = "task",
    client: Optional[Client] = None,
) -> Callable[..., List[Optional[float]]]:
    """A TRL reward function backed by the service at ``url`` (``$AORLTA_URL`` by default)."""
    c = client or Client(url, profile=profile)

    def aorlta(completions: List[Any], **kwargs: Any) -> List[Optional[float]]:
        if task_key not in kwargs:
            raise KeyError(
                f"the dataset has no `{task_key}` column with task ids (pass task_key= to reward_func)"
            )
        tasks = kwargs[task_key]
        items = [{"task": t, "completion": _text(c_)} for t, c_ in zip(tasks, completions)]
        entries = c.score(items)
        return [float(e["reward"]) if e.get("scored") and e.get("reward") is not None else None for e in entries]

    aorlta.__name__ = "aorlta"
    return aorlta
