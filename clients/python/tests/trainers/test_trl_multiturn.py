"""TRL's own multi-turn environment path (pinned in clients/python/trainer-tests) over an
AORLTA episode.

What runs: a real ``GRPOTrainer`` built on CPU around a one-layer GPT-2 with
``environment_factory=trl_environment(...)`` (TRL probes the class: ``reset``, the ``submit``
tool, ``get_reward`` made a reward column of its own), the toy tokenizer with TRL's Qwen3 chat
template (TRL checks that it renders tool calls); each environment then plays a scripted
three-turn episode (no answer, wrong, right) as the tool-calling loop would call it, and TRL's
``_calculate_rewards`` reads the rewards from the environments; the same with the class
docs/RECIPES.md's ``Env = trl_environment(...)`` line makes (read from that file) over the
scripted three-turn kernel episode on the fake device (``kernel_episode``: wrong, correct but
slower, faster). What does not run: generation
(the tool calls come from the script, not from the model) and the optimisation step.
"""

import math

from _trainers import need


def test_grpo_environment_factory_over_an_episode(server, tasks, toy_tokenizer, tmp_path):
    need("trl")
    transformers = need("transformers")
    datasets = need("datasets")
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from aorlta_client.episodes import trl_environment

    tokenizer, _ = toy_tokenizer
    tokenizer.chat_template = qwen3_chat_template
    model = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(n_layer=1, n_head=1, n_embd=8, n_positions=64, vocab_size=len(tokenizer))
    )
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2,
        max_completion_length=8, report_to=[], use_cpu=True, bf16=False,
    )
    a, b = tasks[0], tasks[1]
    rows = {"prompt": [[{"role": "user", "content": t["prompt"]}] for t in (a, a)], "task": [a["id"], a["id"]]}
    env_class = trl_environment(server, max_turns=3, turn_reward="best-so-far")
    trainer = GRPOTrainer(
        model=model, reward_funcs=[], args=args, train_dataset=datasets.Dataset.from_dict(rows),
        processing_class=tokenizer, environment_factory=env_class,
    )
    assert trainer.reward_func_names == ["AorltaEnvironment"]
    tool_names = [t.__name__ for t in trainer.tools]
    assert tool_names == ["submit"], tool_names

    # The tool-calling loop, scripted: two rollouts of the same prompt.
    envs = [env_class(), env_class()]
    feedback = []
    for env, script in zip(envs, [
        ["I do not know.", "\\boxed{-12345}", f"\\boxed{{{a['answer']}}}"],
        ["I do not know."],
    ]):
        env.reset(prompt=rows["prompt"][0], task=a["id"])
        feedback.append([env.submit(turn) for turn in script])
    assert "No answer was found" in feedback[0][0]
    assert "not correct" in feedback[0][1] and a["answer"] not in feedback[0][1]
    assert "The answer is correct." in feedback[0][2]
    assert envs[0].submit("again") == "No turns are left in this episode."

    trainer.environments = envs
    inputs = [{"prompt": rows["prompt"][0], "task": a["id"]}] * 2
    rewards = trainer._calculate_rewards(inputs, [i["prompt"] for i in inputs], ["x", "y"], [[1], [1]])
    assert tuple(rewards.shape) == (2, 1)
    assert [float(x) for x in rewards[:, 0]] == [1.0, -1.0]

    # An environment with no turn gives None, which TRL makes NaN.
    fresh = env_class()
    fresh.reset(task=b["id"])
    trainer.environments = [fresh, envs[0]]
    rewards = trainer._calculate_rewards(inputs, [i["prompt"] for i in inputs], ["x", "y"], [[1], [1]])
    assert math.isnan(float(rewards[0, 0])) and float(rewards[1, 0]) == 1.0


def test_grpo_environment_factory_plays_the_kernel_episode_with_the_recipes_class(kernel_server, toy_tokenizer, tmp_path):
    """The recipe's ``Env = trl_environment(...)`` line (docs/RECIPES.md, read from the file) as
    TRL's environment factory, over the scripted three-turn kernel episode on the fake device."""
    import pathlib
    import re

    need("trl")
    transformers = need("transformers")
    datasets = need("datasets")
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    import kernel_episode
    from aorlta_client.episodes import trl_environment

    recipes = pathlib.Path(__file__).resolve().parents[4] / "docs" / "RECIPES.md"
    line = re.search(r"^Env = trl_environment\(.*\)$", recipes.read_text(), re.M)
    assert line, "docs/RECIPES.md has no `Env = trl_environment(...)` line"
    names = {"trl_environment": trl_environment}
    exec(line.group(0).replace("http://HOST:8787", kernel_server), names)
    env_class = names["Env"]

    tokenizer, _ = toy_tokenizer
    tokenizer.chat_template = qwen3_chat_template
    model = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(n_layer=1, n_head=1, n_embd=8, n_positions=64, vocab_size=len(tokenizer))
    )
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2,
        max_completion_length=8, report_to=[], use_cpu=True, bf16=False,
    )
    task = kernel_episode.TASK
    rows = {"prompt": [[{"role": "user", "content": "Write vector_add."}]] * 2, "task": [task, task]}
    trainer = GRPOTrainer(
        model=model, reward_funcs=[], args=args, train_dataset=datasets.Dataset.from_dict(rows),
        processing_class=tokenizer, environment_factory=env_class,
    )
    assert [t.__name__ for t in trainer.tools] == ["submit"]

    envs = [env_class(), env_class()]
    feedback = []
    for env, script in zip(envs, [kernel_episode.COMPLETIONS, kernel_episode.COMPLETIONS[:1]]):
        env.reset(prompt=rows["prompt"][0], task=task)
        feedback.append([env.submit(turn) for turn in script])
    kernel_episode.check_feedback(feedback[0])
    own = [t["entry"]["reward"] for t in envs[0].episode.turns]
    kernel_episode.check_entry_rewards(own)
    assert envs[0].submit("again") == "No turns are left in this episode."

    trainer.environments = envs
    inputs = [{"prompt": rows["prompt"][0], "task": task}] * 2
    rewards = trainer._calculate_rewards(inputs, [i["prompt"] for i in inputs], ["x", "y"], [[1], [1]])
    # best-so-far: the faster kernel's reward; the other rollout stopped at the wrong kernel.
    got = [float(x) for x in rewards[:, 0]]  # float32 in TRL's tensor
    assert abs(got[0] - max(own)) < 1e-6 and got[1] == own[0], (got, own)
