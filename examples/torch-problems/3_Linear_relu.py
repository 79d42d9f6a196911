import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer followed by ReLU: its weight and bias become inputs of the kernel."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


batch = 1024
in_features = 512
out_features = 256


def get_inputs():
    return [torch.rand(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
