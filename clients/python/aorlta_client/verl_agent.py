"""verl multi-turn: an agent loop for verl 0.9's ``verl.experimental.agent_loop`` in which each
sample is an AORLTA episode (docs/API.md, "Episodes").

verl 0.9.1 has no ``verl.interactions`` package any more; its multi-turn path is the agent loop:
a class derived from ``AgentLoopBase``, named in a YAML file that
``actor_rollout_ref.rollout.agent.agent_loop_config_path`` points to, and chosen per sample by
the dataset's ``agent_name`` column or for all by ``actor_rollout_ref.rollout.agent.default_agent_loop``.
For each sample :class:`EpisodeAgentLoop`:

1. opens an episode at the sample's task: ``extra_info["aorlta_task"]`` when present, else
   ``reward_model["ground_truth"]`` (a task id the service loaded);
2. generates a reply through verl's server manager and sends it as the episode's next turn
   (turn id ``<request id>/turn-<k>``, so a retried request answers the same turn);
3. appends the reply and then the turn's feedback, as the next **user** message, to the
   conversation (the feedback's tokens get response mask 0: the model is not trained on them)
   and generates again, until the episode is done (``max_turns``), the feedback is empty or the
   response is full (``rollout.response_length``).

What verl reads: ``reward_score`` (verl puts it on the last response token of ``rm_scores``,
the reward tensor its advantage estimators get): the last turn's reward (``reward: last``) or
the episode's discounted sum (``reward: discounted-sum``); a ``null`` one (an unscored entry)
becomes ``unscored_score`` (0.0 by default; ``nan`` with the ``aorlta_*`` estimators of
:mod:`aorlta_client.verl_advantage`). ``extra_fields["turn_scores"]`` (the key verl's own
tool agent loop fills) holds every turn's reward, and ``reward_extra_info`` (copied by verl into
the batch's non-tensor columns) ``aorlta_mask`` (0.0 when the reward is the stand-in),
``aorlta_turns`` and ``acc`` (1.0 when the last turn's entry was correct; timing aside).
``extra_fields`` also keeps ``aorlta_episode`` (the episode id) and ``aorlta_feedback`` (each
turn's feedback).

The agent loop config (docs/RECIPES.md has a whole recipe)::

    - name: aorlta_episode
      _target_: aorlta_client.verl_agent.EpisodeAgentLoop
      url: http://HOST:8787
      max_turns: 3
      turn_reward: best-so-far

Its other keys are this class's keyword arguments: ``profile``, ``discount``, ``reward``,
``unscored_score``, ``token``. ``aorlta_client`` must be importable in verl's agent-loop
workers (Ray actors): ``ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH`` as for the reward
drop-in.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput

from aorlta_client.client import Client
from aorlta_client.episodes import Episode
from aorlta_client.verl import accuracy

#: The name the recipe's agent loop config file gives the loop. The file is what registers it
#: (verl's worker reads it into its registry); this module does not register itself, since its
#: import, which verl makes on the loop's first use, would replace that entry, keyword
#: arguments and all, with a bare one.
NAME = "aorlta_episode"


def sample_task(kwargs: Dict[str, Any]) -> str:
    """The task id of a verl sample: ``extra_info["aorlta_task"]``, else the ground truth."""
    extra = kwargs.get("extra_info") or {}
    task = extra.get("aorlta_task") if isinstance(extra, dict) else None
    if task is None:
        rm = kwargs.get("reward_model") or {}
        task = rm.get("ground_truth") if isinstance(rm, dict) else None
    if not isinstance(task, str) or not task:
        raise ValueError(
            "a verl sample for an AORLTA episode names its task in extra_info.aorlta_task or "
            f"reward_model.ground_truth (a task id); got {task!r}"
        )
    return task


class EpisodeAgentLoop(AgentLoopBase):  # type: ignore[misc]
    """One AORLTA episode per sample (module docstring)."""

    def __init__(
        self,
        *args: Any,
        url: Optional[str] = None,
        profile: Optional[str] = None,
        max_turns: Optional[int] = None,
        turn_reward: str = "own",
        discount: Optional[float] = None,
        reward: str = "last",
        unscored_score: float = 0.0,
        token: Optional[str] = None,
        **kwargs: Any,
    ):
        if reward not in ("last", "discounted-sum"):
            raise ValueError(f"reward {reward!r}: expected 'last' or 'discounted-sum'")
        # verl's registry entry passes its own `name` and the tools; neither is used here.
        kwargs.pop("name", None)
        kwargs.pop("tools", None)
        super().__init__(*args, **kwargs)
        self.client = Client(url, profile=profile, token=token)
        self.profile = profile
        self.max_turns = max_turns
        self.turn_reward = turn_reward
        self.discount = discount
        self.reward = reward
        self.unscored_score = float(unscored_score)
        self.response_length: int = self.rollout_config.response_length

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """A blocking client call, off verl's event loop."""
        return await self.loop.run_in_executor(None, lambda: fn(*args, **kwargs))

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
        messages: List[Dict[str, Any]] = [dict(m) for m in kwargs["raw_prompt"]]
        episode: Episode = await self._call(
            Episode, self.client, sample_task(kwargs), profile=self.profile, max_turns=self.max_turns,
            turn_reward=self.turn_reward, discount=self.discount,
        )
        request_id = uuid4().hex
        prompt_ids: List[int] = await self.ct_build_initial_tokens(messages)
        response_mask: List[int] = []
        logprobs: Optional[List[float]] = None
        metrics: Dict[str, Any] = {}
        feedback: List[str] = []
        turn_scores: List[Optional[float]] = []
        user_turns = 0
        last: Optional[Dict[str, Any]] = None
        while True:
            out = await self.server_manager.generate(
                request_id=request_id, prompt_ids=prompt_ids, sampling_params=sampling_params
            )
            if out.num_preempted is not None:
                metrics["num_preempted"] = metrics.get("num_preempted", 0) + out.num_preempted
            merged, response_mask, aligned = await self.ct_merge_assistant_token(
                prompt_ids, out.token_ids, response_mask,
                logprobs if (logprobs or out.log_probs) else None,
                assistant_logprobs=out.log_probs or None,
            )
            prompt_ids = merged.token_ids
            if aligned is not None:
                logprobs = aligned
            text = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
            last = await self._call(episode.turn, text, turn_id=f"{request_id}/turn-{len(turn_scores)}")
            turn_scores.append(last["reward"])
            said = last.get("feedback") or ""
            feedback.append(said)
            if last["done"] or not said or len(response_mask) >= self.response_length:
                break
            previous = list(messages)
            messages.append({"role": "assistant", "content": text})
            messages.append({"role": "user", "content": said})
            merged, mask, aligned = await self.ct_merge_context_msg(
                previous, messages, prompt_ids, response_mask, logprobs
            )
            if len(mask) >= self.response_length:
                break
            prompt_ids, response_mask = merged.token_ids, mask
            if logprobs is not None:
                logprobs = aligned or []
            user_turns += 1
        assert last is not None  # the loop takes at least one turn
        value: Optional[float] = last.get("discounted_sum") if self.reward == "discounted-sum" else last.get("reward")
        scored = value is not None
        correct = scored and accuracy(last.get("entry") or {}) == 1.0
        # As verl's own loops split it: the response is the tail the mask covers.
        split = len(prompt_ids) - len(response_mask)
        response_ids = prompt_ids[split:]
        return AgentLoopOutput(
            prompt_ids=prompt_ids[:split],
            response_ids=response_ids[: self.response_length],
            response_mask=response_mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            reward_score=self.unscored_score if value is None else float(value),
            num_turns=len(turn_scores) + user_turns + 1,
            metrics=metrics,
            extra_fields={
                "turn_scores": turn_scores,
                "tool_rewards": [],
                "aorlta_episode": episode.id,
                "aorlta_feedback": feedback,
                "reward_extra_info": {
                    "aorlta_mask": 1.0 if scored else 0.0,
                    "aorlta_turns": float(len(turn_scores)),
                    "acc": 1.0 if correct else 0.0,
                },
            },
        )

