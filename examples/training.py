"""What the example scripts share: a training step and loop (Adam, optional float16 autocast with a
GradScaler) and a command line that trains on "foo" and on the CPU from the same initial weights
and prints both losses per step.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Sequence

import torch
from torch import nn

import foo_cl  # noqa: F401  (registers the "foo" device)

Batch = tuple[torch.Tensor, torch.Tensor]
LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Step = Callable[[torch.Tensor, torch.Tensor], float]  # (inputs, targets) -> the loss


def training_step(model: nn.Module, device: str, loss_fn: LossFn, amp: bool = False) -> Step:
    """One training step of `model` on `device` per call of the result, `step(inputs, targets)`, which
    returns the loss: zero the gradients, forward, backward and an Adam step. The model is moved and the
    optimizer (and with `amp` a GradScaler) built once, here, as a training loop does before its first step."""
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler(device, enabled=amp)

    def step(inputs: torch.Tensor, targets: torch.Tensor) -> float:
        inputs, targets = inputs.to(device), targets.to(device)
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.float16, enabled=amp):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss.item()

    return step


def train(model: nn.Module, device: str, batches: Sequence[Batch], loss_fn: LossFn, amp: bool = False) -> list[float]:
    """Trains `model` on `device` with Adam, one step per (inputs, targets) batch; returns the losses."""
    step = training_step(model, device, loss_fn, amp)
    return [step(inputs, targets) for inputs, targets in batches]


def compare_with_cpu(
    description: str,
    make_model: Callable[[], nn.Module],
    make_batches: Callable[[int], Sequence[Batch]],
    loss_fn: LossFn,
) -> None:
    """The examples' main(): --steps N, --amp (float16 autocast on foo)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--amp", action="store_true", help="float16 autocast with a GradScaler on foo")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = make_model().eval()  # eval: dropout off, so both devices see the same function
    batches = make_batches(args.steps)
    cpu = train(copy.deepcopy(model), "cpu", batches, loss_fn)
    foo = train(copy.deepcopy(model), "foo", batches, loss_fn, amp=args.amp)
    for step, (a, b) in enumerate(zip(foo, cpu)):
        print(f"step {step:3d}  foo {a:.6f}  cpu {b:.6f}")
