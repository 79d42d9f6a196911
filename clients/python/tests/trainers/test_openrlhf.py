"""OpenRLHF's own remote-reward code (pinned in clients/python/trainer-tests) calling the
service's ``/get_reward``.

What runs: OpenRLHF's ``SingleTurnAgentExecutor.execute`` (``openrlhf.utils.agent``): it
tokenizes the prompt with the toy tokenizer, left-truncates it to fit ``max_length``, stitches
prompt and generated tokens, decodes the query *with* its special tokens, and posts one sample
per request with aiohttp (180 s total, 5 tries, 1 s apart, no ``Retry-After``). What does not
run: vLLM (it needs a GPU): a stand-in engine returns fixed token ids as the generation.
"""

import asyncio
from types import SimpleNamespace

from _trainers import need
from aorlta_service import start_server, stop_server


class Engine:
    """Stands in for vLLM's engine: answers a fixed text, ending with the end token."""

    def __init__(self, tokenizer, text):
        self.ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]

    async def generate(self, prompt_token_ids, params, multi_modal_data=None):
        out = SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def _execute(url, tokenizer, prompt, label, text, max_length=512):
    need("openrlhf")
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(url + "/get_reward")
    params = SimpleNamespace(max_tokens=32, logprobs=None)
    return executor.execute(prompt, label, params, max_length, tokenizer, Engine(tokenizer, text))


def test_one_sample_per_request_with_special_tokens_and_truncated_prompts(server, tasks, toy_tokenizer):
    tokenizer, _ = toy_tokenizer
    t = tasks[0]
    prompt = f"<|im_start|>user\n{t['prompt']}<|im_end|>\n<|im_start|>assistant\n"
    long_prompt = "Background you may skip. " * 8 + prompt

    async def go():
        return await asyncio.gather(
            _execute(server, tokenizer, prompt, t["id"], f"so \\boxed{{{t['answer']}}}"),
            _execute(server, tokenizer, prompt, t["id"], "\\boxed{-12345}"),
            # max_length 120 - 32 new tokens: the prompt keeps only its last 88 bytes.
            _execute(server, tokenizer, long_prompt, t["id"], f"\\boxed{{{t['answer']}}}", max_length=120),
        )

    right, wrong, truncated = asyncio.run(go())
    assert "<|im_end|>" in tokenizer.decode(right["observation_tokens"], skip_special_tokens=False)
    # One sample per request: each answer holds lists of one.
    assert (right["reward"], right["scores"]) == ([1.0], [1.0])
    assert (wrong["reward"], wrong["scores"]) == ([-0.5], [0.0]), "scores are correctness, not the reward"
    assert len(truncated["observation_tokens"]) <= 120
    assert (truncated["reward"], truncated["scores"]) == ([1.0], [1.0]), truncated["extra_logs"]
    assert right["extra_logs"] == {"scored": [1.0], "timed_out": [0.0], "unscored": [0.0]}


def test_a_full_queue_makes_samples_wait_not_fail(tmp_path, tasks, toy_tokenizer):
    # One worker, room for one item, one request at a time: 40 samples at once, as OpenRLHF
    # sends them, each must get its reward (OpenRLHF's reward is None after five refusals).
    tokenizer, _ = toy_tokenizer
    proc, url = start_server(
        tmp_path,
        "lanes:\n  qa: {workers: 1, queue-items: 1, item-timeout: 30s}\n"
        "limits: {max-requests-in-flight: 1, queue-wait: 60s}\n",
    )
    try:
        t = tasks[3]
        prompt = f"Q: {t['prompt']}\nA: "

        async def go():
            return await asyncio.gather(
                *(_execute(url, tokenizer, prompt, t["id"], f"({i}) \\boxed{{{t['answer']}}}") for i in range(40))
            )

        out = asyncio.run(go())
        assert [o["reward"] for o in out] == [[1.0]] * 40
    finally:
        stop_server(proc)
