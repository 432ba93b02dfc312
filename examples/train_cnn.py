"""Trains a small CNN on synthetic images on "foo" and on the CPU from the same initial weights,
printing both losses per step. Usage: python -m examples.train_cnn [--steps N] [--amp]
"""

from __future__ import annotations

import argparse
import copy

import torch
import torch.nn.functional as F
from torch import nn

import foo_cl  # noqa: F401  (registers the "foo" device)


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


def train(model: nn.Module, device: str, batches, amp: bool = False) -> list[float]:
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler(device, enabled=amp)
    losses = []
    for images, labels in batches:
        images, labels = images.to(device), labels.to(device)
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.float16, enabled=amp):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--amp", action="store_true", help="float16 autocast with a GradScaler on foo")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = SmallCNN().eval()  # eval: dropout off, so both devices see the same function
    batches = synthetic_batches(args.steps)
    cpu = train(copy.deepcopy(model), "cpu", batches)
    foo = train(copy.deepcopy(model), "foo", batches, amp=args.amp)
    for step, (a, b) in enumerate(zip(foo, cpu)):
        print(f"step {step:3d}  foo {a:.6f}  cpu {b:.6f}")


if __name__ == "__main__":
    main()
