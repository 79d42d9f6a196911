"""verl drop-in: reward functions for verl's ``custom_reward_function``.

verl maps a reward to a number, so an unscored entry (``reward: null``) becomes
``unscored_score`` (default 0.0), and the dict answers say so: ``{"score": float,
"aorlta_mask": 1.0 | 0.0}`` where ``aorlta_mask`` is 0.0 when the score is the stand-in. verl
copies the dict's other keys into ``reward_extra_info`` (one list per key, logged with the
batch). **verl itself never reads ``aorlta_mask``**: its advantage estimators see the stand-in
score like any other. To keep unscored samples out of the advantage baseline, score with
``unscored_score=nan`` and train with an ``aorlta_*`` estimator
(:mod:`aorlta_client.verl_advantage`, docs/RECIPES.md).

The sample's task comes from its ``reward_model.ground_truth`` read in ``task_mode``
(:mod:`aorlta_client.tasks`): ``"auto"`` (the default) takes a ground truth that is a task id
the service loaded as that task and any other as the reference answer of a Q&A task of its own
(its prompt ``extra_info["question"]`` when there is one); ``"id"`` takes it as a task id
always, ``"answer"`` as an answer always. ``extra_info["aorlta_task"]`` (an id or an inline
task object) takes precedence when present. Each score dict says ``aorlta_answer`` 1.0 when
the sample was scored in answer mode, 0.0 in id mode.

Which function for which path (docs/RECIPES.md has the exact keys per verl version):

- :func:`compute_score` (``async def``): the reward loop, verl's only path in 0.8 and 0.9
  (``reward.custom_reward_function.path`` and ``.name``, read by its ``RewardLoopWorker``).
  Its ``naive`` manager awaits one call per sample; the calls made concurrently on one event
  loop are gathered into batched requests (:class:`aorlta_client.client.Coalescer`).
- :func:`compute_score_batch`: the legacy ``batch`` reward manager
  (``reward_model.use_reward_loop=False reward_model.reward_manager=batch``, verl 0.7 and
  b178a3cd); one request per ``max_batch`` items.
- :func:`compute_score_sync`: the legacy ``naive`` manager (one request per sample).
- :func:`compute_score_prime`: the legacy ``prime`` manager, which calls positionally in a
  process pool and wants a float: the score alone (the mask cannot travel).

Each score dict has ``acc``, which verl's validation reports (``val-core/.../acc``) in place
of the mean reward: 1.0 when the entry is scored and every rewarded leg but the timing one is
clean (a Q&A answer that matches the reference; a kernel that compiles and matches the
reference on every size, whatever its speed), else 0.0 (an unscored sample counts as not
accurate; ``aorlta_mask`` says which those are).

:func:`worker_setup`, given to Ray as the runtime environment's
``worker_process_setup_hook``, makes a run fail loudly when AORLTA is not what computes its
reward (verl 0.9.1's ``main_ppo`` ignores the legacy ``custom_reward_function.path`` and
``reward_model.reward_manager`` keys without a word) and registers the ``aorlta_*``
advantage estimators.

The service URL is ``$AORLTA_URL`` (default ``http://127.0.0.1:8787``), or pass ``url=`` (and
``profile=``, ``unscored_score=``) through ``custom_reward_function.reward_kwargs``. This file
uses absolute imports because verl loads it by path.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import weakref
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from aorlta_client import tasks as _tasks
from aorlta_client.client import AsyncClient, Client, Coalescer, default_url

log = logging.getLogger("aorlta_client.verl")

_clients: Dict[str, Client] = {}
# Per event loop (held weakly: a closed loop's coalescers go with it, and a new loop that
# reuses a dead one's id() never finds them).
_coalescers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Dict[Tuple[str, Optional[str]], Coalescer]]" = (
    weakref.WeakKeyDictionary()
)


def _client(url: Optional[str]) -> Client:
    u = url or default_url()
    if u not in _clients:
        _clients[u] = Client(u)
    return _clients[u]


def _coalescer(url: Optional[str], profile: Optional[str]) -> Coalescer:
    """One async client and coalescer per event loop, URL and profile."""
    loop = asyncio.get_running_loop()
    mine = _coalescers.setdefault(loop, {})
    key = (url or default_url(), profile)
    if key not in mine:
        mine[key] = Coalescer(AsyncClient(key[0], profile=profile))
    return mine[key]


def _task(ground_truth: Any, extra_info: Optional[Dict[str, Any]], mode: str = "auto", url: Optional[str] = None) -> Tuple[Any, bool]:
    """The sample's task and whether it is scored in answer mode."""
    if isinstance(extra_info, dict) and extra_info.get("aorlta_task") is not None:
        return extra_info["aorlta_task"], False
    question = extra_info.get("question", "") if isinstance(extra_info, dict) else ""
    u = url or default_url()
    return _tasks.resolve(
        ground_truth, _tasks.check_mode(mode), question, lambda: _tasks.known_ids(u, _client(url).tasks)
    )


def accuracy(entry: Mapping[str, Any]) -> float:
    """``acc``: 1.0 when the entry is scored and every rewarded leg but a timing one
    (``kernel-time``) is clean, else 0.0."""
    if not entry.get("scored") or entry.get("reward") is None:
        return 0.0
    legs = [l for l in entry.get("legs", []) if not l.get("informational") and l.get("adapter") != "kernel-time"]
    return 1.0 if legs and all(l.get("state") == "clean" for l in legs) else 0.0


def to_score(entry: Mapping[str, Any], unscored_score: float = 0.0, answer: bool = False) -> Dict[str, Any]:
    """A reward entry as verl's score dict."""
    mode = 1.0 if answer else 0.0
    acc = accuracy(entry)
    if entry.get("scored") and entry.get("reward") is not None:
        return {"score": float(entry["reward"]), "acc": acc, "aorlta_mask": 1.0, "aorlta_answer": mode}
    codes = [r.get("code") for r in entry.get("reasons", [])]
    log.debug("unscored %s (task %s): %s", entry.get("id"), entry.get("task"), codes)
    return {"score": float(unscored_score), "acc": acc, "aorlta_mask": 0.0, "aorlta_answer": mode}


async def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Optional[Dict[str, Any]] = None,
    *,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    task_mode: str = "auto",
    **_: Any,
) -> Dict[str, Any]:
    """The reward loop's form: the score of one response, sent with the other responses being
    scored at the same time."""
    task, answer = _task(ground_truth, extra_info, task_mode, url)
    entry = await _coalescer(url, profile).score_one(task, solution_str)
    return to_score(entry, unscored_score, answer)


def compute_score_sync(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Optional[Dict[str, Any]] = None,
    *,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    task_mode: str = "auto",
    **_: Any,
) -> Dict[str, Any]:
    """The legacy naive manager's form: the score of one response, one request."""
    task, answer = _task(ground_truth, extra_info, task_mode, url)
    entry = _client(url).score_one(task, solution_str, profile=profile)
    return to_score(entry, unscored_score, answer)


def compute_score_prime(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Optional[Dict[str, Any]] = None,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    task_mode: str = "auto",
) -> float:
    """The legacy prime manager's form (positional arguments, a float back). An unscored
    entry's float is ``unscored_score``; prime keeps no extra info, so it is not marked."""
    score: float = compute_score_sync(
        data_source,
        solution_str,
        ground_truth,
        extra_info,
        url=url,
        profile=profile,
        unscored_score=unscored_score,
        task_mode=task_mode,
    )["score"]
    return score


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Optional[Dict[str, Any]]]] = None,
    *,
    url: Optional[str] = None,
    profile: Optional[str] = None,
    unscored_score: float = 0.0,
    task_mode: str = "auto",
    **_: Any,
) -> List[Dict[str, Any]]:
    """The legacy batch manager's form: the scores of a batch, in order, from one request per
    ``max_batch`` items."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    resolved = [_task(gt, info, task_mode, url) for gt, info in zip(ground_truths, infos)]
    items = [{"task": t, "completion": s} for s, (t, _) in zip(solution_strs, resolved)]
    entries = _client(url).score(items, profile=profile)
    return [to_score(e, unscored_score, a) for e, (_, a) in zip(entries, resolved)]


# The functions that compute a reward through AORLTA: what :func:`check_reward_config` looks for.
for _f in (compute_score, compute_score_sync, compute_score_batch, compute_score_prime):
    setattr(_f, "aorlta_reward", True)


class NotAorltaReward(RuntimeError):
    """The run's reward is not computed by AORLTA's reward function."""


def check_reward_config(config: Any) -> None:
    """Raises :class:`NotAorltaReward` unless verl's own loader (``get_custom_reward_fn``) finds
    one of this module's reward functions at ``reward.custom_reward_function.path`` and
    ``.name``, naming the keys that verl read and any legacy key that it ignored."""
    from verl.trainer.ppo.reward import get_custom_reward_fn

    fn = get_custom_reward_fn(config)
    raw = fn.args[0] if isinstance(fn, functools.partial) and fn.args else fn
    if getattr(raw, "aorlta_reward", False):
        return
    reward = config.get("reward") or {}
    found = reward.get("custom_reward_function") or {}
    legacy = []
    old_fn = config.get("custom_reward_function") or {}
    if old_fn.get("path") is not None:
        legacy.append(f"custom_reward_function.path={old_fn.get('path')}")
    old_rm = config.get("reward_model") or {}
    if old_rm.get("reward_manager") is not None:
        legacy.append(f"reward_model.reward_manager={old_rm.get('reward_manager')}")
    ignored = f"; this config sets {', '.join(legacy)}, which verl's main_ppo ignores" if legacy else ""
    here = os.path.abspath(__file__)
    raise NotAorltaReward(
        "AORLTA does not compute this run's reward: verl reads reward.custom_reward_function.path "
        f"(here {found.get('path')!r}) and reward.custom_reward_function.name (here {found.get('name')!r}), "
        f"which name no AORLTA reward function{ignored}. Set reward.custom_reward_function.path={here} "
        "reward.custom_reward_function.name=compute_score (docs/RECIPES.md)."
    )


def require_aorlta_reward() -> None:
    """Makes every verl reward loop worker of this process check its config first
    (:func:`check_reward_config`): a worker whose reward is not AORLTA's raises as it starts."""
    from verl.experimental.reward_loop import reward_loop

    if getattr(reward_loop.load_reward_manager, "aorlta_checked", False):
        return
    original = reward_loop.load_reward_manager

    @functools.wraps(original)
    def load_reward_manager(config: Any, tokenizer: Any, **kwargs: Any) -> Any:
        check_reward_config(config)
        return original(config, tokenizer, **kwargs)

    setattr(load_reward_manager, "aorlta_checked", True)
    reward_loop.load_reward_manager = load_reward_manager


def worker_setup() -> None:
    """Ray's ``worker_process_setup_hook`` for verl runs (docs/RECIPES.md): in every worker
    process, the reward loop's check (:func:`require_aorlta_reward`) and the ``aorlta_*``
    advantage estimators (:func:`aorlta_client.verl_advantage.register`)."""
    from aorlta_client import verl_advantage

    verl_advantage.register()
    require_aorlta_reward()
