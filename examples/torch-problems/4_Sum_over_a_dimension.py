import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over one dimension, kept as a dimension of one."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch = 64
rows = 512
cols = 300
dim = 1


def get_inputs():
    return [torch.rand(batch, rows, cols)]


def get_init_inputs():
    return [dim]
