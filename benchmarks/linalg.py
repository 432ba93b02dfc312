"""Reduction, softmax and matrix-product rows: the targets (mm at 1024 and 2048, bmm of
64 128x128 products, sum of 16M, column sum of 4096x4096, softmax over 4096x1024 rows), mm at
256/512/4096, and a GEMM shape sweep in GFLOP/s.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from benchmarks.harness import Op, benchmark

N16M = 16 << 20


def _rand(*shape: int, device: str) -> torch.Tensor:
    return torch.rand(shape).to(device)


def _mm_row(m: int, k: int, n: int, repeat: int, label: str = "") -> None:
    def make(device: str) -> Op:
        a, b = _rand(m, k, device=device), _rand(k, n, device=device)
        return lambda: torch.mm(a, b)

    name = label or f"mm {m}x{k}x{n}"
    benchmark(name, size=f"{m}x{k} @ {k}x{n}", unit="GFLOP/s", work=2 * m * k * n, repeat=repeat)(make)


for side, repeat in [(256, 20), (512, 10), (1024, 5), (2048, 3), (4096, 2)]:
    _mm_row(side, side, side, repeat, label=f"mm {side}")

# The sweep: tall-skinny, wide and inner-product shapes as linear layers produce them, and sides
# no tile divides (a classifier's 1000 outputs).
for m, k, n in [
    (4096, 256, 256),
    (256, 4096, 256),
    (256, 256, 4096),
    (128, 1024, 4096),
    (8192, 64, 64),
    (1000, 1000, 1000),
    (512, 768, 1000),
]:
    _mm_row(m, k, n, 5)


@benchmark("linear x @ W.t()", size="1024x1024 @ (1024x1024).t()", unit="GFLOP/s", work=2 * 1024**3, repeat=5)
def linear_nt(device: str) -> Op:
    x, w = _rand(1024, 1024, device=device), _rand(1024, 1024, device=device)
    return lambda: F.linear(x, w)


@benchmark("bmm", size="64 x 128x128 @ 128x128", unit="GFLOP/s", work=2 * 64 * 128**3, repeat=10)
def bmm(device: str) -> Op:
    a, b = _rand(64, 128, 128, device=device), _rand(64, 128, 128, device=device)
    return lambda: torch.bmm(a, b)


@benchmark("sum", size="16M float32", unit="GB/s", work=4 * N16M)
def sum_all(device: str) -> Op:
    x = _rand(N16M, device=device)
    return lambda: x.sum()


@benchmark("sum(0) column reduction", size="4096x4096", unit="GB/s", work=4 * 4096 * 4096)
def sum_columns(device: str) -> Op:
    x = _rand(4096, 4096, device=device)
    return lambda: x.sum(0)


@benchmark("sum(1) row reduction", size="4096x4096", unit="GB/s", work=4 * 4096 * 4096)
def sum_rows(device: str) -> Op:
    x = _rand(4096, 4096, device=device)
    return lambda: x.sum(1)


@benchmark("amax", size="16M float32", unit="GB/s", work=4 * N16M)
def amax(device: str) -> Op:
    x = _rand(N16M, device=device)
    return lambda: x.amax()


@benchmark("var(1)", size="4096x4096", unit="GB/s", work=4 * 4096 * 4096, repeat=5)
def var_rows(device: str) -> Op:
    x = _rand(4096, 4096, device=device)
    return lambda: x.var(1)


@benchmark("argmax(1)", size="4096x4096", unit="GB/s", work=4 * 4096 * 4096, repeat=5)
def argmax_rows(device: str) -> Op:
    x = _rand(4096, 4096, device=device)
    return lambda: x.argmax(1)


@benchmark("topk(10, -1)", size="1024x1024", unit="GB/s", work=4 * 1024 * 1024, repeat=5)
def topk(device: str) -> Op:
    x = _rand(1024, 1024, device=device)
    return lambda: x.topk(10, -1)


@benchmark("softmax(-1)", size="4096x1024", unit="GB/s", work=2 * 4 * 4096 * 1024)
def softmax(device: str) -> Op:
    x = _rand(4096, 1024, device=device)
    return lambda: F.softmax(x, -1)


@benchmark("log_softmax(-1)", size="4096x1024", unit="GB/s", work=2 * 4 * 4096 * 1024)
def log_softmax(device: str) -> Op:
    x = _rand(4096, 1024, device=device)
    return lambda: F.log_softmax(x, -1)
