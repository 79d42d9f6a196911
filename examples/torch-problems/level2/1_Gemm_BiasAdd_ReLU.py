import torch
import torch.nn as nn


class Model(nn.Module):
    """A product by a weight, a bias added to every row, then ReLU: the shape of most fused
    operators, a matrix product and its epilogue."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.proj(x) + self.bias)


batch = 1024
in_features = 128
out_features = 64


def get_inputs():
    return [torch.rand(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
