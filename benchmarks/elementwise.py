"""Elementwise rows: the elementwise targets (add and exp out=, broadcast and transposed add, float16
add, per-op overhead of a small in-place add) and one row per op family, masked selections (a
random mask) with a scalar and in place too. Rates count the bytes
read and written once (add of 16M float32: 2 x 64 MB read + 64 MB written).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from benchmarks.harness import Op, benchmark

M = 1 << 20
N16M = 16 * M
SIDE = 4096
SMALL = 1024
SMALL_CALLS = 200


def _rand(shape: tuple[int, ...], device: str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.rand(shape, dtype=torch.float32).to(dtype).to(device)


@benchmark("add out=", size="16M float32", unit="GB/s", work=3 * 4 * N16M)
def add_out(device: str) -> Op:
    x, y, z = _rand((N16M,), device), _rand((N16M,), device), torch.empty(N16M, device=device)
    return lambda: torch.add(x, y, out=z)


@benchmark("exp out=", size="16M float32", unit="GB/s", work=2 * 4 * N16M)
def exp_out(device: str) -> Op:
    x, z = _rand((N16M,), device), torch.empty(N16M, device=device)
    return lambda: torch.exp(x, out=z)


@benchmark("broadcast add", size="4096x4096 + 4096", unit="GB/s", work=2 * 4 * SIDE * SIDE)
def broadcast_add(device: str) -> Op:
    x, y = _rand((SIDE, SIDE), device), _rand((SIDE,), device)
    return lambda: x + y


@benchmark("transposed add", size="x.t() + y, 4096^2", unit="GB/s", work=3 * 4 * SIDE * SIDE)
def transposed_add(device: str) -> Op:
    x, y = _rand((SIDE, SIDE), device), _rand((SIDE, SIDE), device)
    return lambda: x.t() + y


@benchmark("float16 add", size="16M (vs cpu float32)", unit="GB/s", work=3 * 4 * N16M)
def half_add(device: str) -> Op:
    """foo adds float16; the CPU baseline adds float32, so both rates count float32-sized elements."""
    dtype = torch.float16 if device == "foo" else torch.float32
    x, y = _rand((N16M,), device, dtype), _rand((N16M,), device, dtype)
    z = torch.empty(N16M, device=device, dtype=dtype)
    return lambda: torch.add(x, y, out=z)


@benchmark("add_(1) overhead", size=f"{SMALL} float32", unit="us", work=SMALL_CALLS)
def small_add(device: str) -> Op:
    x = _rand((SMALL,), device)

    def run() -> None:
        for _ in range(SMALL_CALLS):
            x.add_(1)

    return run


def _family(name: str, size: str, work: int, make: callable) -> None:
    benchmark(name, size=size, unit="GB/s", work=work)(make)


def _unary_rows() -> None:
    for name, fn in [("tanh", torch.tanh), ("sigmoid", torch.sigmoid), ("gelu", F.gelu), ("erfinv", torch.erfinv)]:

        def make(device: str, fn=fn) -> Op:
            x = _rand((N16M,), device)
            return lambda: fn(x)

        _family(f"unary {name}", "16M float32", 2 * 4 * N16M, make)


def _binary_rows() -> None:
    for name, fn in [("mul", torch.mul), ("maximum", torch.maximum), ("gt", torch.gt), ("pow", torch.pow)]:

        def make(device: str, fn=fn) -> Op:
            x, y = _rand((N16M,), device), _rand((N16M,), device)
            return lambda: fn(x, y)

        _family(f"binary {name}", "16M float32", 3 * 4 * N16M, make)


def _ternary_rows() -> None:
    def where(device: str) -> Op:
        x, y = _rand((N16M,), device), _rand((N16M,), device)
        c = x > 0.5
        return lambda: torch.where(c, x, y)

    _family("ternary where", "16M float32", 3 * 4 * N16M + N16M, where)

    def where_scalar(device: str) -> Op:
        x = _rand((N16M,), device)
        c = x > 0.5
        return lambda: torch.where(c, x, 0.0)

    _family("where(mask, x, 0.0)", "16M float32", 2 * 4 * N16M + N16M, where_scalar)

    def masked_fill(device: str) -> Op:
        x = _rand((N16M,), device)
        c = x > 0.5
        return lambda: x.masked_fill_(c, 0.5)

    _family("masked_fill_ in place", "16M float32", 2 * 4 * N16M + N16M, masked_fill)

    def addcmul(device: str) -> Op:
        x, y, z = _rand((N16M,), device), _rand((N16M,), device), _rand((N16M,), device)
        return lambda: torch.addcmul(x, y, z, value=0.5)

    _family("ternary addcmul", "16M float32", 4 * 4 * N16M, addcmul)


def _cast_rows() -> None:
    def cast(device: str) -> Op:
        x = _rand((N16M,), device)
        return lambda: x.to(torch.bfloat16)

    _family("cast float32->bfloat16", "16M", 6 * N16M, cast)


_unary_rows()
_binary_rows()
_ternary_rows()
_cast_rows()
