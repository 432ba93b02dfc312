"""Trains a small CNN on synthetic images on "foo" and on the CPU from the same initial weights,
printing both losses per step. Usage: python -m examples.train_cnn [--steps N] [--amp]
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from examples import training


class SmallCNN(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.dropout = nn.Dropout(0.1)
        self.fc = nn.Linear(32 * 8 * 8, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(self.dropout(torch.flatten(x, 1)))


def synthetic_batches(steps: int, batch: int = 16, seed: int = 0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(batch, 3, 32, 32, generator=g), torch.randint(0, 10, (batch,), generator=g)) for _ in range(steps)
    ]


def training_step(model: nn.Module, device: str, amp: bool = False) -> training.Step:
    return training.training_step(model, device, F.cross_entropy, amp)


def train(model: nn.Module, device: str, batches, amp: bool = False) -> list[float]:
    return training.train(model, device, batches, F.cross_entropy, amp)


if __name__ == "__main__":
    training.compare_with_cpu(__doc__, SmallCNN, synthetic_batches, F.cross_entropy)
