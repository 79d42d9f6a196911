import torch
import torch.nn as nn


class Model(nn.Module):
    """A strided 1-D convolution: the output's length follows the input's by a formula, not equal
    to any size variable."""

    def __init__(self, channels: int, out_channels: int, kernel: int, stride: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, out_channels, kernel, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch = 32
channels = 16
out_channels = 32
length = 65536
kernel = 5
stride = 3


def get_inputs():
    return [torch.rand(batch, channels, length)]


def get_init_inputs():
    return [channels, out_channels, kernel, stride]
