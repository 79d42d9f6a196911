"""What the verl and trainer tests build without a download: a byte-level toy tokenizer and
verl ``DataProto`` batches of (task, completion) samples. Used by ``trainers/`` (against one
service) and ``cluster/`` (verl's reward loop inside the Ray cluster)."""

import pathlib

from aorlta_service import need


def toy_tokenizer(path: pathlib.Path):
    """A byte-level tokenizer made here: every byte is a token, plus the end and padding tokens
    of a chat template; saved at ``path`` so that code loading a tokenizer by path can. Returns
    the tokenizer and ``path``."""
    tokenizers = need("tokenizers")
    transformers = need("transformers")
    from tokenizers import decoders, models, pre_tokenizers

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    tok = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token="<|endoftext|>"
    )
    fast.save_pretrained(str(path))
    return fast, pathlib.Path(path)


def dataproto(tokenizer, samples, prompt="Q: ", extra_infos=None):
    """A verl ``DataProto`` of ``samples`` ((ground truth, completion) pairs: a task id or an
    answer): one prompt for all, each response ending in the end token and right-padded, and
    ``extra_infos`` (one dict per sample; ``{"index": i}`` by default)."""
    torch = need("torch")
    np = need("numpy")
    verl = need("verl")
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    rows = [tokenizer(c + "<|im_end|>", add_special_tokens=False)["input_ids"] for _, c in samples]
    width = max(len(r) for r in rows) + 2
    pad = tokenizer.pad_token_id
    responses = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
    prompts = torch.tensor([prompt_ids] * len(rows))
    mask = torch.tensor([[1] * len(prompt_ids) + [1] * len(r) + [0] * (width - len(r)) for r in rows])
    return verl.DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["aorlta"] * len(rows), dtype=object),
            "reward_model": np.array([{"ground_truth": t} for t, _ in samples], dtype=object),
            "extra_info": np.array(extra_infos or [{"index": i} for i in range(len(rows))], dtype=object),
        },
    )
