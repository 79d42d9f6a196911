"""Multi-turn episodes against the service (docs/API.md, "Episodes"): open one at a task, take
turns (each answered with its entry, the feedback to show the model next, and the turn's
reward), read the transcript; and the trainers' multi-turn faces over it.

- :class:`Episode`: the calls themselves.
- :func:`trl_environment`: a class for TRL's ``GRPOTrainer(environment_factory=...)`` (TRL 1.16):
  ``reset(**row)`` opens an episode at the row's task and returns the prompt, the tool method
  ``submit(answer)`` takes a turn and returns its feedback (the tool's answer the model reads
  next), and ``get_reward()`` is the episode's reward (the last turn's, or the discounted sum).
"""

from typing import Any, Dict, List, Optional

from .client import Client


class Episode:
    """One episode. ``turn_reward`` is ``own``, ``best-so-far`` or ``gain``; ``discount`` the
    discount of the discounted sum reported beside each turn's reward."""

    def __init__(
        self,
        client: Client,
        task: str,
        *,
        profile: Optional[str] = None,
        max_turns: Optional[int] = None,
        turn_reward: str = "own",
        discount: Optional[float] = None,
    ):
        body: Dict[str, Any] = {"task": task, "turn_reward": turn_reward}
        if profile is not None:
            body["profile"] = profile
        if max_turns is not None:
            body["max_turns"] = max_turns
        if discount is not None:
            body["discount"] = discount
        self.client = client
        self.head: Dict[str, Any] = client._json("POST", "/v1/episodes", body)
        self.id: str = self.head["id"]
        self.turns: List[Dict[str, Any]] = []

    def turn(self, completion: str, turn_id: Optional[str] = None) -> Dict[str, Any]:
        """Scores ``completion`` as the next turn; a ``turn_id`` makes a retry answer the same turn."""
        body: Dict[str, Any] = {"completion": completion}
        if turn_id is not None:
            body["turn_id"] = turn_id
        answer: Dict[str, Any] = self.client._json("POST", f"/v1/episodes/{self.id}/turns", body)
        if answer["turn"] == len(self.turns):
            self.turns.append(answer)
        return answer

    def transcript(self) -> Dict[str, Any]:
        """The episode as the service keeps it."""
        transcript: Dict[str, Any] = self.client._json("GET", f"/v1/episodes/{self.id}")
        return transcript

    @property
    def done(self) -> bool:
        return bool(self.turns and self.turns[-1]["done"])


def trl_environment(
    url: Optional[str] = None,
    *,
    task_key: str = "task",
    profile: Optional[str] = None,
    max_turns: Optional[int] = None,
    turn_reward: str = "own",
    discount: Optional[float] = None,
    reward: str = "last",
    token: Optional[str] = None,
) -> type:
    """An environment class for TRL's ``environment_factory`` (pass the class itself: TRL calls
    it once per rollout slot). ``reward`` is ``last`` (the last turn's reward) or
    ``discounted-sum``; an episode with no scored turn gives ``None``, which TRL ignores."""
    if reward not in ("last", "discounted-sum"):
        raise ValueError(f"reward {reward!r}: expected 'last' or 'discounted-sum'")

    class AorltaEnvironment:
        def __init__(self) -> None:
            self._client = Client(url, profile=profile, token=token)
            self.episode: Optional[Episode] = None

        def reset(self, **row: Any) -> Optional[str]:
            """Opens an episode at the row's task (its ``task_key`` column)."""
            self.episode = Episode(
                self._client, str(row[task_key]), profile=profile, max_turns=max_turns,
                turn_reward=turn_reward, discount=discount,
            )
            return None

        def submit(self, answer: str) -> str:
            """Submit your answer (or kernel) to be checked; the result says what was found.

            Args:
                answer: The full answer text, as you would write it in your reply.
            """
            if self.episode is None:
                raise RuntimeError("reset() opens the episode first")
            if self.episode.done:
                return "No turns are left in this episode."
            t = self.episode.turn(answer)
            return t.get("feedback") or ""

        def get_reward(self) -> Optional[float]:
            if self.episode is None or not self.episode.turns:
                return None
            last = self.episode.turns[-1]
            value = last["discounted_sum"] if reward == "discounted-sum" else last["reward"]
            return None if value is None else float(value)

    return AorltaEnvironment
