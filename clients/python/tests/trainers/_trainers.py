"""Helpers shared by the trainer tests."""

import pathlib

from aorlta_service import need  # noqa: F401 (imported from here by the tests)


def client_file(name: str) -> str:
    """The drop-in file a trainer loads by path."""
    import aorlta_client

    return str(pathlib.Path(aorlta_client.__file__).parent / f"{name}.py")


def grpo_trainer(tokenizer, tmp_path, dataset, reward_funcs):
    """A real TRL ``GRPOTrainer`` on CPU around a one-layer GPT-2 made here from a config (no
    download), over ``dataset`` (a dict of columns) with ``reward_funcs``."""
    need("trl")
    transformers = need("transformers")
    datasets = need("datasets")
    from trl import GRPOConfig, GRPOTrainer

    model = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(n_layer=1, n_head=1, n_embd=8, n_positions=64, vocab_size=len(tokenizer))
    )
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        report_to=[],
        use_cpu=True,
        bf16=False,
        logging_steps=1,
    )
    return GRPOTrainer(
        model=model,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=datasets.Dataset.from_dict(dataset),
        processing_class=tokenizer,
    )
