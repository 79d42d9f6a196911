"""The trainers' own reward-calling code against a real ``aorlta serve`` (the ``server``
fixture of the parent folder). These tests need the trainers' packages, which only the
trainer venv holds (``scripts/trainer-venv.sh``, pinned in ``clients/python/trainer-tests``):
elsewhere they are skipped, and with ``AORLTA_TRAINERS_REQUIRED=1`` (what ``scripts/test`` sets
in that venv) a missing package is a failure, not a skip."""

import pathlib

import pytest

from _trainers import need


@pytest.fixture(scope="session")
def toy_tokenizer(tmp_path_factory):
    """A byte-level tokenizer made here (no download): every byte is a token, plus the end
    and padding tokens of a chat template; saved so that code loading a tokenizer by path can."""
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
    path = tmp_path_factory.mktemp("toy-tokenizer")
    fast.save_pretrained(str(path))
    return fast, pathlib.Path(path)


