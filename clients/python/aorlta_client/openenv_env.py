"""OpenEnv (``openenv-core``): AORLTA's episodes as an OpenEnv environment.

OpenEnv defines an RL environment as a Gym-like server (``reset``, ``step``, ``state`` over
HTTP and WebSocket, one environment instance per session) and a typed client. Here:

- :class:`AorltaEnvironment` (an ``openenv.core.env_server.Environment``): ``reset(task=...)``
  opens an episode at that task and observes its prompt; ``step(SubmitAction(completion=...))``
  takes a turn and observes its ``feedback`` (the text for the model's next turn), with the
  turn's ``reward``, ``done`` when no turn is left, and the entry's own reward and the
  discounted sum beside; ``state`` says the episode, its task and its turns.
- :func:`app`: the FastAPI app OpenEnv's ``create_fastapi_app`` makes of it (one environment,
  so one episode, per WebSocket session); ``python -m aorlta_client.openenv_env --url
  http://HOST:8787 --port 8000`` serves it with uvicorn.
- :class:`AorltaEnvClient` (an ``openenv.core.EnvClient``): the typed client a trainer or an
  agent harness uses (``async with AorltaEnvClient(base_url=...) as env``, or ``.sync()``).

The environment is a thin face over the service: rewards, feedback and transcripts are the
service's (docs/API.md, "Episodes"); no seed or reference reaches the observation.
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, Optional

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Environment, create_fastapi_app
from openenv.core.env_server.types import Action, Observation, State

from aorlta_client.client import Client
from aorlta_client.episodes import Episode


class SubmitAction(Action):  # type: ignore[misc]
    """The model's reply for this turn (its answer, or its kernel in a code block)."""

    completion: str
    #: A retried step with the same turn id answers the same turn.
    turn_id: Optional[str] = None


class FeedbackObservation(Observation):  # type: ignore[misc]
    """What the model sees: the task's prompt after ``reset``, each turn's feedback after
    ``step``. ``reward`` is the turn's reward in the episode's ``turn_reward`` mode (``None``
    when unscored); ``entry_reward`` the entry's own."""

    prompt: str = ""
    feedback: str = ""
    task: str = ""
    episode: str = ""
    turn: int = -1
    entry_reward: Optional[float] = None
    discounted_sum: Optional[float] = None


class EpisodeState(State):  # type: ignore[misc]
    """The episode behind a session: its service id, task and the turns' rewards so far."""

    task: str = ""
    aorlta_episode: str = ""
    rewards: List[Optional[float]] = []
    done: bool = False


class AorltaEnvironment(Environment):  # type: ignore[misc]
    """One AORLTA episode per session. ``turn_reward`` is ``own``, ``best-so-far`` or ``gain``;
    ``discount`` the discount of the discounted sum; ``max_turns`` the episode's turns (the
    service's default when ``None``)."""

    #: Each instance keeps its own episode; the service takes turns of many at once.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        profile: Optional[str] = None,
        max_turns: Optional[int] = None,
        turn_reward: str = "own",
        discount: Optional[float] = None,
        token: Optional[str] = None,
    ):
        super().__init__()
        self.client = Client(url, profile=profile, token=token)
        self.profile = profile
        self.max_turns = max_turns
        self.turn_reward = turn_reward
        self.discount = discount
        self.episode: Optional[Episode] = None
        self._prompts: Dict[str, str] = {}

    def _prompt(self, task: str) -> str:
        if task not in self._prompts:
            self._prompts = {t["id"]: t.get("prompt", "") for t in self.client.tasks()}
        return self._prompts.get(task, "")

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> FeedbackObservation:
        """Opens an episode at ``task`` (a task id the service loaded). ``seed`` and
        ``episode_id`` are OpenEnv's; the service draws its own inputs and names its episodes."""
        task = kwargs.get("task")
        if not isinstance(task, str) or not task:
            raise ValueError(f"reset needs `task`, a task id the service loaded; got {task!r}")
        self.episode = Episode(
            self.client, task, profile=self.profile, max_turns=self.max_turns,
            turn_reward=self.turn_reward, discount=self.discount,
        )
        return FeedbackObservation(prompt=self._prompt(task), task=task, episode=self.episode.id)

    def step(self, action: SubmitAction, timeout_s: Optional[float] = None, **kwargs: Any) -> FeedbackObservation:
        """Takes a turn; a step after the last turn observes ``done`` and no reward."""
        if self.episode is None:
            raise RuntimeError("reset(task=...) opens the episode first")
        ep = self.episode
        if ep.done:
            return FeedbackObservation(
                feedback="No turns are left in this episode.", task=ep.head["task"], episode=ep.id,
                turn=len(ep.turns), done=True,
            )
        t = ep.turn(action.completion, turn_id=action.turn_id)
        entry = t.get("entry") or {}
        return FeedbackObservation(
            feedback=t.get("feedback") or "", task=ep.head["task"], episode=ep.id, turn=t["turn"],
            reward=t["reward"], done=bool(t["done"]), entry_reward=entry.get("reward"),
            discounted_sum=t.get("discounted_sum"),
        )

    @property
    def state(self) -> EpisodeState:
        ep = self.episode
        if ep is None:
            return EpisodeState()
        return EpisodeState(
            episode_id=ep.id, step_count=len(ep.turns), task=ep.head["task"], aorlta_episode=ep.id,
            rewards=[t["reward"] for t in ep.turns], done=ep.done,
        )


def app(url: Optional[str] = None, *, max_concurrent_envs: int = 64, **options: Any) -> Any:
    """OpenEnv's FastAPI app over :class:`AorltaEnvironment` (``options`` are its keyword
    arguments: ``profile``, ``max_turns``, ``turn_reward``, ``discount``, ``token``)."""
    return create_fastapi_app(
        lambda: AorltaEnvironment(url, **options), SubmitAction, FeedbackObservation,
        max_concurrent_envs=max_concurrent_envs,
    )


class AorltaEnvClient(EnvClient):  # type: ignore[misc]
    """OpenEnv's client for the served environment: ``reset(task=...)``, ``step(SubmitAction(...))``."""

    def _step_payload(self, action: SubmitAction) -> Dict[str, Any]:
        payload: Dict[str, Any] = action.model_dump(exclude={"metadata"}, exclude_none=True)
        return payload

    def _parse_result(self, payload: Dict[str, Any]) -> Any:
        obs = dict(payload.get("observation") or {})
        obs["reward"] = payload.get("reward")
        obs["done"] = bool(payload.get("done", False))
        return StepResult(observation=FeedbackObservation(**obs), reward=obs["reward"], done=obs["done"])

    def _parse_state(self, payload: Dict[str, Any]) -> EpisodeState:
        return EpisodeState(**payload)


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description="Serve AORLTA's episodes as an OpenEnv environment.")
    p.add_argument("--url", help="the AORLTA service (default $AORLTA_URL)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--profile")
    p.add_argument("--max-turns", type=int)
    p.add_argument("--turn-reward", default="own", choices=["own", "best-so-far", "gain"])
    p.add_argument("--discount", type=float)
    a = p.parse_args(argv)
    import uvicorn

    uvicorn.run(
        app(a.url, profile=a.profile, max_turns=a.max_turns, turn_reward=a.turn_reward, discount=a.discount),
        host=a.host, port=a.port,
    )


if __name__ == "__main__":
    main()
