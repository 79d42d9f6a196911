"""Helpers shared by the trainer tests."""

import pathlib

from aorlta_service import need  # noqa: F401 (imported from here by the tests)


def client_file(name: str) -> str:
    """The drop-in file a trainer loads by path."""
    import aorlta_client

    return str(pathlib.Path(aorlta_client.__file__).parent / f"{name}.py")
