"""Random-number rows: uniform_, normal_, bernoulli_ and dropout forward over 16M float32 (the
targets, in Gsamples/s), plus randperm and multinomial. foo draws Philox4x32-10 in parallel;
the CPU generator is a sequential Mersenne Twister.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from benchmarks.harness import Op, benchmark

N16M = 16 << 20


@benchmark("uniform_", size="16M float32", unit="Gsamples/s", work=N16M)
def uniform(device: str) -> Op:
    x = torch.empty(N16M, device=device)
    return lambda: x.uniform_()


@benchmark("normal_", size="16M float32", unit="Gsamples/s", work=N16M)
def normal(device: str) -> Op:
    x = torch.empty(N16M, device=device)
    return lambda: x.normal_()


@benchmark("bernoulli_", size="16M float32, p=0.5", unit="Gsamples/s", work=N16M)
def bernoulli(device: str) -> Op:
    x = torch.empty(N16M, device=device)
    return lambda: x.bernoulli_(0.5)


@benchmark("dropout forward", size="16M float32, p=0.1", unit="Gsamples/s", work=N16M)
def dropout(device: str) -> Op:
    x = torch.rand(N16M).to(device)
    return lambda: F.dropout(x, 0.1, training=True)


@benchmark("randperm", size="1M", unit="Gsamples/s", work=1 << 20)
def randperm(device: str) -> Op:
    return lambda: torch.randperm(1 << 20, device=device)


@benchmark("multinomial", size="256 rows x 1000 categories, 64 with replacement", unit="Gsamples/s", work=256 * 64)
def multinomial(device: str) -> Op:
    weights = torch.rand(256, 1000).to(device)
    return lambda: torch.multinomial(weights, 64, replacement=True)
