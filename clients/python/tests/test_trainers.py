"""Each trainer drop-in, called the way that trainer calls it."""

import asyncio
import importlib.util
import json
import urllib.request

import pytest

from aorlta_client import Client
from aorlta_client import openrlhf as openrlhf_mod
from aorlta_client.trl import reward_func


def _load_by_path(name):
    """verl and OpenRLHF load a reward file by path, not as a package module."""
    import aorlta_client

    path = __import__("pathlib").Path(aorlta_client.__file__).parent / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"reward_file_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_verl_single_and_batch_forms(server, monkeypatch, tasks):
    monkeypatch.setenv("AORLTA_URL", server)
    verl = _load_by_path("verl")
    t = tasks[0]
    good = f"so \\boxed{{{t['answer']}}}"
    single = verl.compute_score_sync(data_source="aorlta-qa", solution_str=good, ground_truth=t["id"], extra_info={"index": 0})
    assert single == {"score": 1.0, "acc": 1.0, "aorlta_mask": 1.0, "aorlta_answer": 0.0}
    wrong = verl.compute_score_sync("aorlta-qa", "\\boxed{-12345}", t["id"])
    assert wrong == {"score": -0.5, "acc": 0.0, "aorlta_mask": 1.0, "aorlta_answer": 0.0}
    # Id mode, unknown task: the stand-in score, masked.
    unknown = verl.compute_score_sync("aorlta-qa", good, "no-such-task", unscored_score=-0.1, task_mode="id")
    assert unknown == {"score": -0.1, "acc": 0.0, "aorlta_mask": 0.0, "aorlta_answer": 0.0}
    # Auto mode (the default): a ground truth that is no task id is the answer; answer mode
    # takes even a task id as the answer.
    assert verl.compute_score_sync("aorlta-qa", f"\\boxed{{{t['answer']}}}", t["answer"]) == {
        "score": 1.0,
        "acc": 1.0,
        "aorlta_mask": 1.0,
        "aorlta_answer": 1.0,
    }
    as_answer = verl.compute_score_sync("aorlta-qa", good, t["id"], task_mode="answer")
    assert as_answer == {"score": -0.5, "acc": 0.0, "aorlta_mask": 1.0, "aorlta_answer": 1.0}
    # prime's form: positional, a float.
    assert verl.compute_score_prime("aorlta-qa", good, t["id"], None) == 1.0
    # Batch form, as verl's batch reward manager calls it; an inline task through extra_info.
    out = verl.compute_score_batch(
        data_sources=["aorlta-qa"] * 3,
        solution_strs=[good, good, "\\boxed{2}"],
        ground_truths=[t["id"], "no-such-task", "ignored"],
        extra_infos=[None, {}, {"aorlta_task": {"id": "inline", "prompt": "1+1?", "answer": "2"}}],
        task_mode="id",
    )
    assert out[0] == single
    assert out[1] == {"score": 0.0, "acc": 0.0, "aorlta_mask": 0.0, "aorlta_answer": 0.0}
    assert out[2] == {"score": 1.0, "acc": 1.0, "aorlta_mask": 1.0, "aorlta_answer": 0.0}


def test_verl_acc_is_a_right_answer_or_a_correct_kernel_whatever_its_speed():
    verl = _load_by_path("verl")

    def entry(states, scored=True):
        legs = [{"name": n, "adapter": a, "state": st, "elapsed_s": 0.0} for n, a, st in states]
        return {"scored": scored, "reward": 0.4 if scored else None, "legs": legs}

    kernel = [("parse", "parse", "clean"), ("compile", "kernel-compile", "clean"), ("ref.native", "kernel-run", "clean")]
    # Correct, not faster: accurate; wrong on some size: not; unscored: not.
    assert verl.to_score(entry(kernel + [("ref.speedup", "kernel-time", "broke")]))["acc"] == 1.0
    wrong = kernel[:2] + [("ref.native", "kernel-run", "broke"), ("ref.speedup", "kernel-time", "skipped")]
    assert verl.to_score(entry(wrong))["acc"] == 0.0
    assert verl.to_score(entry(kernel, scored=False))["acc"] == 0.0
    # An informational leg that broke does not count against it.
    qa = [("parse", "parse", "clean"), ("ref.normalised", "normalised-match", "clean")]
    info = {"name": "ref.exact", "adapter": "reference-match", "state": "broke", "informational": True, "elapsed_s": 0.0}
    e = entry(qa)
    e["legs"].append(info)
    assert verl.to_score(e)["acc"] == 1.0


def test_verl_async_compute_score_coalesces_concurrent_calls(server, monkeypatch, tasks):
    monkeypatch.setenv("AORLTA_URL", server)
    verl = _load_by_path("verl")
    samples = [(t["id"], f"so \\boxed{{{t['answer']}}}" if n % 2 else "\\boxed{-1}") for n, t in enumerate(tasks * 10)]

    async def go():
        out = await asyncio.gather(*(verl.compute_score("aorlta-qa", c, gt, {}) for gt, c in samples))
        [coalescer] = verl._coalescers[asyncio.get_running_loop()].values()
        return out, coalescer.requests

    out, requests = asyncio.run(go())
    assert len(out) == len(samples) == 600
    assert [o["score"] for o in out] == [1.0 if n % 2 else -0.5 for n in range(600)]
    assert requests <= 3, f"600 concurrent calls took {requests} requests"


def test_verl_one_sample_without_a_task_does_not_fail_the_others_batched_with_it(server, monkeypatch, tasks):
    monkeypatch.setenv("AORLTA_URL", server)
    verl = _load_by_path("verl")
    good = tasks[0]

    async def go():
        return await asyncio.gather(
            verl.compute_score("aorlta-qa", f"\\boxed{{{good['answer']}}}", good["id"], {}),
            verl.compute_score("aorlta-qa", "\\boxed{1}", None, {}),
        )

    ok, missing = asyncio.run(go())
    assert ok == {"score": 1.0, "acc": 1.0, "aorlta_mask": 1.0, "aorlta_answer": 0.0}
    assert missing == {"score": 0.0, "acc": 0.0, "aorlta_mask": 0.0, "aorlta_answer": 0.0}


def test_trl_reward_funcs(server, tasks):
    f = reward_func(server, task_mode="id")
    assert f.__name__ == "aorlta"
    t = tasks[1]
    completions = [f"\\boxed{{{t['answer']}}}", [{"role": "assistant", "content": "\\boxed{0}"}], "\\boxed{1}"]
    # TRL passes prompts, completions and every dataset column as lists.
    rewards = f(
        prompts=[t["prompt"]] * 3,
        completions=completions,
        completion_ids=[[1], [2], [3]],
        task=[t["id"], t["id"], "no-such-task"],
    )
    assert rewards == [1.0, -0.5, None], "right, wrong, unscored is None"
    with pytest.raises(KeyError):
        f(prompts=["p"], completions=["c"])
    # Rows without a usable task get None without a request; content may be parts or None;
    # the unscored and timed-out fractions go to log_metric.
    logged = {}
    rewards = f(
        prompts=["p"] * 5,
        completions=[
            [{"role": "assistant", "content": [{"type": "text", "text": f"\\boxed{{{t['answer']}}}"}, {"type": "image"}]}],
            [{"role": "assistant", "content": None}],
            "\\boxed{1}",
            "\\boxed{1}",
            "\\boxed{1}",
        ],
        task=[t["id"], t["id"], None, 7, float("nan")],
        log_metric=lambda k, v: logged.__setitem__(k, v),
    )
    assert rewards == [1.0, -1.0, None, None, None]
    assert logged == {"aorlta/unscored_frac": 0.6, "aorlta/timed_out_frac": 0.0, "aorlta/answer_mode_frac": 0.0}
    assert f(prompts=["p"], completions=["c"], task=[None]) == [None]


def test_trl_async_reward_func(server, tasks):
    from aorlta_client.trl import async_reward_func

    f = async_reward_func(server)
    t = tasks[2]
    out = asyncio.run(f(prompts=["p", "p"], completions=[f"\\boxed{{{t['answer']}}}", "x"], task=[t["id"], None]))
    assert out == [1.0, None]


def test_openrlhf_remote_url_shape(server):
    # What OpenRLHF's remote reward call sends: a JSON POST of query, prompts and labels.
    prompt = "<|im_start|>user\nWhat is 17 × 23?<|im_end|>\n<|im_start|>assistant\n"
    data = {
        "query": [prompt + "\\boxed{391}<|im_end|>", prompt + "\\boxed{1}", "unrelated text"],
        "prompts": [prompt, prompt, prompt],
        "labels": ["qa-001", "qa-001", "qa-001"],
    }
    req = urllib.request.Request(
        openrlhf_mod.remote_url(*server.removeprefix("http://").split(":")),
        data=json.dumps(data).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        out = json.loads(resp.read())
    assert set(out) == {"rewards", "scores", "extra_logs"}
    assert len(out["rewards"]) == 3
    logs = out["extra_logs"]
    assert all(len(v) == 3 for v in logs.values())
    assert logs["unscored"][2] == 1.0 and out["rewards"][2] == 0.0, "prompt not a prefix: unscored"
    assert out["rewards"] == [1.0, -0.5, 0.0]
    assert out["scores"] == [1.0, 0.0, 0.0], "scores are correctness in [0, 1]"
    assert logs["scored"] == [1.0, 1.0, 0.0]


def test_openrlhf_reward_function_file(server, monkeypatch):
    monkeypatch.setenv("AORLTA_URL", server)
    mod = _load_by_path("openrlhf")
    out = mod.reward_func(["P:\\boxed{391}", "Q:x"], ["P:", "P:"], ["qa-001", "qa-001"])
    rewards = [float(x) for x in out["rewards"]]
    assert rewards == [1.0, 0.0]
    assert [float(x) for x in out["extra_logs"]["unscored"]][1] == 1.0


def test_trl_reads_verls_nested_ground_truth_or_says_why_not(server):
    # verl's layout: the answer is `reward_model.ground_truth`, a number or a string.
    reward_model = [{"style": "rule", "ground_truth": 42}, {"style": "rule", "ground_truth": "7"}]
    completions = ["so \\boxed{42}", "so \\boxed{8}"]
    for key in ["reward_model.ground_truth", "reward_model"]:
        f = reward_func(server, task_mode="answer", answer_key=key)
        assert f(prompts=["p", "p"], completions=completions, reward_model=reward_model) == [1.0, -0.5], key
    auto = reward_func(server, answer_key="reward_model.ground_truth")
    assert auto(prompts=["p", "p"], completions=completions, reward_model=reward_model) == [1.0, -0.5]
    # A dotted key no row holds, or a column the batch lacks, is an error naming it, not None
    # for every row.
    f = reward_func(server, task_mode="answer", answer_key="reward_model.truth")
    with pytest.raises(KeyError, match="reward_model.truth"):
        f(prompts=["p"], completions=["c"], reward_model=[{"ground_truth": 1}])
    f = reward_func(server, task_mode="answer", answer_key="reward_model.ground_truth")
    with pytest.raises(KeyError, match="reward_model"):
        f(prompts=["p"], completions=["c"], answer=["1"])


def test_openrlhf_reward_function_file_reads_verls_reward_model_labels(server, monkeypatch):
    monkeypatch.setenv("AORLTA_URL", server)
    mod = _load_by_path("openrlhf")
    out = mod.reward_func(["P:\\boxed{391}"], ["P:"], [{"style": "rule", "ground_truth": "qa-001"}])
    assert [float(x) for x in out["rewards"]] == [1.0]
