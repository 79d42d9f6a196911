"""Which task a trainer's sample is scored against: id mode or answer mode (docs/DATA.md).

Standard datasets carry the ground-truth *answer* (verl's ``reward_model.ground_truth``, a TRL
column, OpenRLHF's label), not the id of a task the service loaded. The drop-ins read each
sample's value in one of three modes:

- ``"id"``: the value is a task id (or an inline task object); an unknown id is answered
  unscored ``unknown-task`` by the service.
- ``"answer"``: the value is the reference answer of a Q&A task of its own, sent inline
  (``{"id": "answer-<hash>", "prompt": ..., "answer": ...}``; the prompt is informational).
- ``"auto"`` (the default): an inline task object as it is; a string that is the id of a task
  the service loaded (``GET /v1/tasks``, asked once per URL) is that task; anything else an
  answer.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Set, Tuple

MODES = ("auto", "id", "answer")

_known: Dict[str, Set[str]] = {}
_lock = threading.Lock()


def check_mode(mode: str) -> str:
    """``mode``, or ``ValueError`` naming the modes."""
    if mode not in MODES:
        raise ValueError(f"task_mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def prompt_text(prompt: Any) -> str:
    """A prompt as text: a string, or the content of the last user message of chat messages."""
    if prompt is None:
        return ""
    if isinstance(prompt, str):
        return prompt
    try:
        messages = list(prompt)
    except TypeError:
        return str(prompt)
    users = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "user"]
    last = users[-1] if users else (messages[-1] if messages else None)
    if isinstance(last, Mapping):
        content = last.get("content")
        return content if isinstance(content, str) else ""
    return ""


def answer_task(answer: Any, prompt: Any = "") -> Dict[str, str]:
    """An inline Q&A task whose reference answer is ``answer`` (a number is written as text)."""
    text = answer if isinstance(answer, str) else str(answer)
    p = prompt_text(prompt)
    digest = hashlib.sha256(f"{p}\0{text}".encode()).hexdigest()[:16]
    return {"id": f"answer-{digest}", "prompt": p, "answer": text}


def known_ids(url: str, fetch: Callable[[], Iterable[Mapping[str, Any]]]) -> Set[str]:
    """The ids of the tasks the service at ``url`` loaded, asked once (``fetch`` lists them)."""
    with _lock:
        if url not in _known:
            _known[url] = {str(t.get("id")) for t in fetch()}
        return _known[url]


def resolve(
    value: Any, mode: str, prompt: Any = "", known: Optional[Callable[[], Set[str]]] = None
) -> Tuple[Any, bool]:
    """The task to send for a sample's ``value`` and whether it is an answer-mode task.
    ``known`` lists the service's task ids (asked only in auto mode, for a string value)."""
    if value is None or mode == "id" or isinstance(value, Mapping):
        return value, False
    if mode == "answer":
        return answer_task(value, prompt), True
    if isinstance(value, str) and known is not None and value in known():
        return value, False
    return answer_task(value, prompt), True
