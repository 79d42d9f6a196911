"""The trainers' own reward-calling code against a real ``aorlta serve`` (the ``server``
fixture of the parent folder). These tests need the trainers' packages, which only the
trainer venv holds (``scripts/trainer-venv.sh``, pinned in ``clients/python/trainer-tests``):
elsewhere they are skipped, and with ``AORLTA_TRAINERS_REQUIRED=1`` (what ``scripts/test`` sets
in that venv) a missing package is a failure, not a skip."""

import pytest


@pytest.fixture(scope="session")
def toy_tokenizer(tmp_path_factory):
    """The byte-level toy tokenizer (``verl_data.toy_tokenizer``), saved in a folder of its own."""
    from verl_data import toy_tokenizer

    return toy_tokenizer(tmp_path_factory.mktemp("toy-tokenizer"))


