"""Client for the AORLTA reward service, with drop-ins for verl, TRL and OpenRLHF.

- :class:`Client` / :class:`AsyncClient`: ``score`` (``POST /v1/score``), ``get_reward``
  (OpenRLHF's shape), ``tasks``, ``profiles``, ``health``, ``metrics``.
- :mod:`aorlta_client.verl`: ``compute_score`` and ``compute_score_batch``.
- :mod:`aorlta_client.trl`: ``reward_func`` for ``GRPOTrainer(reward_funcs=...)``.
- :mod:`aorlta_client.openrlhf`: the remote-URL recipe and a reward function file.

:mod:`aorlta_client.types` gives the answers' shapes as ``TypedDict`` s (``RewardEntry``,
``LegResult``, ``Reason``, ``GetRewardAnswer``) for type checkers.

Every client sends the service's bearer token from ``token=`` or ``$AORLTA_TOKEN``.

An entry the service cannot score (an unsettled leg, an unknown task, a time-out) is never
silently 0: each trainer drop-in maps it to what that trainer understands, and says so.
"""

from aorlta_client.client import DEFAULT_URL, AorltaError, AsyncClient, Client, default_url

__all__ = ["AorltaError", "AsyncClient", "Client", "DEFAULT_URL", "default_url"]
__version__ = "0.1.0"
