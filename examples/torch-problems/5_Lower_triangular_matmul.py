import torch
import torch.nn as nn


class Model(nn.Module):
    """Product of two lower-triangular matrices: its inputs are not a plain draw, so it does not
    import (a task states each input's law, and "lower triangular" is not one)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.tril(torch.matmul(a, b))


n = 1024


def get_inputs():
    return [torch.tril(torch.rand(n, n)), torch.tril(torch.rand(n, n))]


def get_init_inputs():
    return []
