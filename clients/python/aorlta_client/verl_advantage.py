"""verl advantage estimators that leave unscored samples out of the baseline.

verl computes advantages from the reward tensor alone (its estimators get
``token_level_rewards``, ``response_mask``, the group ``index`` and the algorithm config, never
the reward's extra info), so an unscored sample's stand-in score would enter its group's mean
and standard deviation like a real one. The way out is to make the stand-in *no number*:

1. score with ``unscored_score=nan`` (``+reward.custom_reward_function.reward_kwargs.unscored_score=nan``):
   an unscored sample's reward is NaN;
2. train with an ``aorlta_*`` estimator (``algorithm.adv_estimator=aorlta_grpo``), registered by
   :func:`register` in the process that computes advantages.

Each ``aorlta_<name>`` estimator runs verl's own ``<name>`` estimator on the scored samples only
(their rows, their group indices), so their advantages are exactly what verl gives a batch
without the unscored samples; the unscored samples get advantage and return 0 (no gradient from
them); and the NaN rewards are then replaced, in place, by :data:`UNSCORED_FILL` (0.0), so the
scores and rewards verl logs afterwards stay finite. ``aorlta_mask`` in the reward's extra info
still says which samples were unscored.

A stock estimator given a NaN reward makes its whole group's advantages NaN: never pair
``unscored_score=nan`` with one.

verl computes advantages in its ``TaskRunner``, a Ray actor, so :func:`register` must run in
Ray's worker processes: pass it as Ray's setup hook, which verl forwards from its config to
``ray.init``::

    +ray_kwargs.ray_init.runtime_env.worker_process_setup_hook=aorlta_client.verl_advantage.register

(``aorlta_client`` must be importable on every node: ``pip install`` it there, or add it to
``ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH``). Calling :func:`register` twice is
harmless.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

#: What an unscored sample's NaN reward becomes once the advantages are computed.
UNSCORED_FILL = 0.0

#: verl's estimators wrapped: those that read one outcome score per sample (and the group
#: index) from ``token_level_rewards``. ``gae`` needs a critic's values per sample and ``gdpo``
#: the extra info, so neither is wrapped; nor is ``grpo_passk``, which refuses a group of fewer
#: than two samples (what a group becomes when all but one of it are unscored). Names this
#: verl lacks are skipped.
BASES = (
    "grpo",
    "grpo_vectorized",
    "rloo",
    "rloo_vectorized",
    "reinforce_plus_plus",
    "reinforce_plus_plus_baseline",
    "opo",
    "gpg",
)

PREFIX = "aorlta_"


def _rows(value: Any, rows: Any, batch: int) -> Any:
    """``value`` cut to ``rows`` when it holds one element per sample, else itself."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape[0] == batch:
        return value[rows]
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.shape[0] == batch:
        return value[rows.cpu().numpy()]
    return value


def masked(base: str) -> Callable[..., Tuple[Any, Any]]:
    """The estimator running verl's ``base`` on the samples whose reward is a number."""

    def estimator(
        token_level_rewards: Any,
        response_mask: Any,
        config: Optional[Any] = None,
        **kwargs: Any,
    ) -> Tuple[Any, Any]:
        import torch
        from verl.trainer.ppo import core_algos

        fn = core_algos.get_adv_estimator_fn(base)
        batch = token_level_rewards.shape[0]
        scored = ~torch.isnan(token_level_rewards.sum(dim=-1))
        advantages = torch.zeros_like(token_level_rewards)
        returns = torch.zeros_like(token_level_rewards)
        if bool(scored.any()):
            rows = scored.nonzero().flatten()
            sub = {k: _rows(v, rows, batch) for k, v in kwargs.items()}
            if base == "grpo" and config is not None:
                # verl passes this to its own GRPO from the config; the generic path does not.
                sub.setdefault("norm_adv_by_std_in_grpo", config.get("norm_adv_by_std_in_grpo", True))
            a, r = fn(
                token_level_rewards=token_level_rewards[rows].clone(),
                response_mask=response_mask[rows],
                config=config,
                **sub,
            )
            advantages[rows] = a.to(advantages.dtype)
            returns[rows] = r.to(returns.dtype)
        # In place: verl's batch holds this very tensor, and logs it after the advantages.
        token_level_rewards.nan_to_num_(nan=UNSCORED_FILL)
        return advantages, returns

    estimator.__name__ = f"{PREFIX}{base}"
    estimator.__doc__ = f"verl's `{base}` over the scored samples; unscored samples get 0."
    return estimator


def register() -> List[str]:
    """Registers ``aorlta_<name>`` for each wrapped estimator verl has; returns the names."""
    from verl.trainer.ppo import core_algos

    names = []
    for base in BASES:
        if base not in core_algos.ADV_ESTIMATOR_REGISTRY:
            continue
        name = PREFIX + base
        if name not in core_algos.ADV_ESTIMATOR_REGISTRY:
            # Once per process: a second call (or a second copy of this module) finds it there.
            core_algos.register_adv_est(name)(masked(base))
        names.append(name)
    return names
