"""verl's own multi-turn path (pinned in clients/python/trainer-tests: verl 0.9.1's agent loop)
over AORLTA episodes.

What runs: verl's ``AgentLoopWorker`` built from the config Hydra composes out of verl's own
``ppo_trainer.yaml`` with the keys of docs/RECIPES.md's verl multi-turn block (read from that
file), loading the agent loop config file the block shows (its ``_target_`` is
``aorlta_client.verl_agent.EpisodeAgentLoop``) through verl's own registry; its
``generate_sequences`` runs the loop for a batch of samples (verl's tokenisation of the
conversation, the feedback merged as the next user turn, the padding, the reward tensor), with a
scripted server in place of the LLM: each sample's replies are the scripted three-turn kernel
episode (``kernel_episode``: wrong, correct but slower, faster) on the fake device. What does
not run: a model generating, the actor's update.
"""

import asyncio
import pathlib
import re

from _trainers import need

import kernel_episode

ROOT = pathlib.Path(__file__).resolve().parents[4]
RECIPES = ROOT / "docs" / "RECIPES.md"

#: A chat template for the toy tokenizer (the tokens are bytes; `<|im_end|>` is its end token).
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def recipe(url):
    """docs/RECIPES.md's verl multi-turn block: the agent loop config file's text and the
    ``key=value`` words after ``python3 -m verl.trainer.main_ppo ...`` (the service's address
    filled in)."""
    text = RECIPES.read_text()
    block = re.search(r"```yaml\n# aorlta_agent_loop\.yaml\n(.*?)```", text, re.S)
    assert block, "docs/RECIPES.md has no aorlta_agent_loop.yaml block"
    loop_file = block.group(1).replace("http://HOST:8787", url)
    keys_block = re.search(r"```sh\n# verl 0\.9\.1, multi-turn \(the agent loop\):\n(.*?)```", text, re.S)
    assert keys_block, "docs/RECIPES.md has no verl 0.9.1 multi-turn block"
    lines = keys_block.group(1).splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("python3 -m verl.trainer.main_ppo ..."))
    keys = []
    for line in lines[start + 1 :]:
        keys.extend(w for w in line.rstrip("\\ ").split() if "=" in w)
        if not line.rstrip().endswith("\\"):
            break
    return loop_file, keys


class ScriptedServer:
    """Stands in for verl's LLM server client: each sample's replies come from its script, chosen
    by the marker in its prompt; every prompt it was given is kept."""

    def __init__(self, tokenizer, scripts):
        self.tokenizer = tokenizer
        self.scripts = scripts
        self.calls = {}
        self.prompts = {}

    async def generate(self, request_id, prompt_ids, sampling_params, **kwargs):
        from verl.workers.rollout.replica import TokenOutput

        prompt = self.tokenizer.decode(prompt_ids)
        marker = next(m for m in self.scripts if m in prompt)
        k = self.calls.get(marker, 0)
        self.calls[marker] = k + 1
        self.prompts.setdefault(marker, []).append(prompt)
        reply = self.scripts[marker][k] + "<|im_end|>"
        return TokenOutput(token_ids=self.tokenizer(reply, add_special_tokens=False)["input_ids"])


def test_verls_agent_loop_worker_plays_aorlta_episodes(kernel_server, toy_tokenizer, tmp_path):
    need("verl")
    transformers = need("transformers")
    np = need("numpy")
    from hydra import compose, initialize_config_dir
    from verl import DataProto
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.trainer import main_ppo

    from aorlta_client import Client

    tokenizer, _ = toy_tokenizer
    model = tmp_path / "model"
    tokenizer.chat_template = TEMPLATE
    tokenizer.save_pretrained(str(model))
    transformers.GPT2Config(n_layer=1, n_head=1, n_embd=8, n_positions=4096, vocab_size=len(tokenizer),
        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id, architectures=["GPT2LMHeadModel"]).save_pretrained(str(model))

    loop_file, keys = recipe(kernel_server)
    (tmp_path / "aorlta_agent_loop.yaml").write_text(loop_file)
    fill = {"aorlta_agent_loop.yaml": str(tmp_path / "aorlta_agent_loop.yaml"), "$C": str(ROOT / "clients" / "python")}
    for a, b in fill.items():
        keys = [k.replace(a, b) for k in keys]
    assert "actor_rollout_ref.rollout.agent.default_agent_loop=aorlta_episode" in keys, keys
    infra = [
        f"actor_rollout_ref.model.path={model}",
        "actor_rollout_ref.rollout.name=vllm",  # what a run names; no engine is started here
        "actor_rollout_ref.rollout.prompt_length=256",
        "actor_rollout_ref.rollout.response_length=8192",
    ]
    config_dir = str(pathlib.Path(main_ppo.__file__).parent / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        config = compose(config_name="ppo_trainer", overrides=keys + infra)

    scripts = {"[sample A]": kernel_episode.COMPLETIONS, "[sample B]": ["I would loop over the elements."] * 3}
    server = ScriptedServer(tokenizer, scripts)
    asyncio.set_event_loop(asyncio.new_event_loop())
    worker = AgentLoopWorker(config, llm_client=server)
    prompts = [[{"role": "user", "content": f"{m} Write vector_add."}] for m in scripts]
    batch = DataProto.from_dict(
        non_tensors={
            "raw_prompt": np.array(prompts, dtype=object),
            "data_source": np.array(["aorlta"] * 2, dtype=object),
            "reward_model": np.array([{"ground_truth": kernel_episode.TASK}, {"ground_truth": "not-this"}], dtype=object),
            "extra_info": np.array([{"index": 0}, {"index": 1, "aorlta_task": kernel_episode.TASK}], dtype=object),
            "index": np.array([0, 1]),
        }
    )
    out = asyncio.get_event_loop().run_until_complete(worker.generate_sequences(batch))

    # Three turns each (the episode's max_turns), the feedback read back as the next user turn.
    assert server.calls == {"[sample A]": 3, "[sample B]": 3}
    turn_scores = list(out.non_tensor_batch["turn_scores"])
    feedback = list(out.non_tensor_batch["aorlta_feedback"])
    episodes = list(out.non_tensor_batch["aorlta_episode"])
    a_turns = Client(kernel_server)._json("GET", f"/v1/episodes/{episodes[0]}")["turns"]
    own = [t["entry"]["reward"] for t in a_turns]
    kernel_episode.check_entry_rewards(own)
    kernel_episode.check_feedback(feedback[0])
    # turn_reward best-so-far: each turn's reward is the best entry reward so far.
    assert turn_scores[0] == [max(own[: k + 1]) for k in range(3)], (turn_scores[0], own)
    for k in (1, 2):
        assert f"<|im_start|>user\n{feedback[0][k - 1]}<|im_end|>" in server.prompts["[sample A]"][k]
    assert "No fenced code block" in feedback[1][0]
    assert turn_scores[1] == [-1.0, -1.0, -1.0]

    # What verl reads (its trainer's `extract_reward`): the reward on the last response token of
    # rm_scores (the discounted sum, discount 0.9), and the extra info.
    from verl.trainer.ppo.reward import extract_reward

    rm, extra = extract_reward(out)
    assert sorted(extra) == ["acc", "aorlta_mask", "aorlta_turns"], sorted(extra)
    discounted = sum(0.9**k * r for k, r in enumerate(turn_scores[0]))
    assert abs(float(rm[0].sum()) - discounted) < 1e-5, (float(rm[0].sum()), discounted)
    assert abs(float(rm[1].sum()) - (-1.0 - 0.9 - 0.81)) < 1e-5
    last = int(out.batch["response_mask"][0].nonzero().max())
    assert float(rm[0, last]) == float(rm[0].sum())
    assert list(extra["aorlta_mask"]) == [1.0, 1.0]
    assert list(extra["aorlta_turns"]) == [3.0, 3.0]
    assert list(extra["acc"]) == [1.0, 0.0]
    # The model's own tokens are trained on (mask 1), the feedback's are not (mask 0): the
    # masked-in text is exactly the three replies.
    ids, mask = out.batch["responses"][0], out.batch["response_mask"][0]
    mine = tokenizer.decode([int(t) for t, m in zip(ids, mask) if m])
    assert mine == "".join(c + "<|im_end|>" for c in kernel_episode.COMPLETIONS), mine[:300]
    theirs = tokenizer.decode([int(t) for t, m, a in zip(ids, mask, out.batch["attention_mask"][0][-len(ids):]) if a and not m])
    assert feedback[0][0] in theirs and feedback[0][1] in theirs
