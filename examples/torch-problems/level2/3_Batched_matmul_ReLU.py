import torch
import torch.nn as nn


class Model(nn.Module):
    """A batch of matrix products, then ReLU: one `gemm` step computes one product, not a batch."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.bmm(a, b))


batch = 16
m = 64
k = 32
n = 48


def get_inputs():
    return [torch.rand(batch, m, k), torch.rand(batch, k, n)]


def get_init_inputs():
    return []
