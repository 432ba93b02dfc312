"""Data-parallel training of the example CNN, one process per foo device, with torch.distributed
(foo-cl's "foogloo" backend) and DistributedDataParallel.

    POCL_DEVICES="pthread pthread" torchrun --nproc-per-node 2 -m examples.train_ddp [--steps N]

Rank r trains on foo:r with its share of every batch; its batch norms are SyncBatchNorm, so the
statistics are the whole batch's. Rank 0 then trains the same model in one process on the whole
batches, on foo:0, and prints both losses per step with the time of a step of each: the losses
agree to float rounding.
"""

from __future__ import annotations

import argparse
import copy
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from examples import train_cnn, training


class Timed(nn.Module):
    """`module` that records the wall time between calls of its forward (one training step each)."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module
        self.starts: list[float] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.starts.append(time.perf_counter())
        return self.module(x)

    def median_step(self) -> float:
        steps = sorted(b - a for a, b in zip(self.starts[1:], self.starts[2:]))  # the first step builds kernels
        return steps[len(steps) // 2] if steps else float("nan")


def make_model() -> nn.Module:
    torch.manual_seed(0)
    model = train_cnn.SmallCNN()
    model.dropout.p = 0.0  # dropout masks would differ between the two runs
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=16, help="samples per process and step")
    args = parser.parse_args()

    dist.init_process_group()  # foo is the accelerator: its default backend, foogloo
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("foo", rank % torch.foo.device_count())
    torch.foo.set_device(device)

    model = make_model()
    batches = train_cnn.synthetic_batches(args.steps, batch=args.batch * world)
    shards = [(x.chunk(world)[rank], y.chunk(world)[rank]) for x, y in batches]
    timed = Timed(nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(model)).to(device))
    ddp = DistributedDataParallel(timed)
    # Each rank's loss is its shard's mean: their average is the whole batch's loss.
    losses = torch.tensor(training.train(ddp, str(device), shards, F.cross_entropy), device=device)
    dist.all_reduce(losses, op=dist.ReduceOp.AVG)

    if rank == 0:
        single = Timed(model)
        reference = training.train(single, str(device), batches, F.cross_entropy)
        print(f"{world} processes (foogloo), {args.batch} samples each, against 1 process on {args.batch * world}")
        for step, (a, b) in enumerate(zip(losses.tolist(), reference)):
            print(f"step {step:3d}  ddp {a:.7f}  single {b:.7f}  rel diff {abs(a - b) / abs(b):.1e}")
        print(f"median step: ddp {timed.median_step() * 1e3:.1f} ms, single {single.median_step() * 1e3:.1f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
