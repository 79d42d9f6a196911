"""The shapes the service answers, as :class:`typing.TypedDict` s: a type checker (``mypy
--strict``) then catches a reward read as ``int`` rather than ``float | None``, or a key that an
entry never has. They follow the reward entry of docs/API.md (and ``/openapi.json``); keys the
service leaves out when empty (an entry's ``reasons``, a leg's ``reasons``, ``informational``,
``detail`` and ``cached``) are optional.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class Reason(TypedDict):
    """Why a leg or an entry is not clean: a stable kebab-case ``code`` and a ``detail``."""

    code: str
    detail: str


class Parts(TypedDict):
    """The three parts whose sum is a scored reward."""

    base: float
    broke_healthy: float
    length: float


class _LegRequired(TypedDict):
    name: str
    adapter: str
    state: str
    elapsed_s: float


class LegResult(_LegRequired, total=False):
    """One leg's outcome: ``state`` is ``clean``, ``broke``, ``unsettled`` or ``skipped``."""

    reasons: List[Reason]
    informational: bool
    detail: Any
    cached: bool


class FormatVersion(TypedDict):
    """The record format an entry follows."""

    major: int
    minor: int


class VersionIdentity(TypedDict):
    """What a cached result is keyed by besides the task and the completion."""

    aorlta: str
    profile: str
    legs: Dict[str, str]


class _EntryRequired(TypedDict):
    format: FormatVersion
    id: str
    task: str
    reward: Optional[float]
    scored: bool
    parts: Optional[Parts]
    legs: List[LegResult]
    profile: str
    reward_fn: str
    version: VersionIdentity
    elapsed_s: float


class RewardEntry(_EntryRequired, total=False):
    """The answer for one item: ``reward`` is ``None`` exactly when ``scored`` is false."""

    reasons: List[Reason]
    # Text for the model (absent when the profile's feedback produced none): what was read,
    # which size and input broke the kernel and how, the timing; never a seed.
    feedback: str


class GetRewardAnswer(TypedDict):
    """``POST /get_reward``'s answer (OpenRLHF's shape)."""

    rewards: List[float]
    scores: List[float]
    extra_logs: Dict[str, List[float]]


__all__ = ["FormatVersion", "GetRewardAnswer", "LegResult", "Parts", "Reason", "RewardEntry", "VersionIdentity"]
