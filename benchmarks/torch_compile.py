"""torch.compile rows: compiled foo against eager foo (not the CPU) on a chain of 8 pointwise ops,
layer_norm + GELU + residual, and one training step of each example model; and the time torch.compile
takes for the small transformer's training step, with Inductor's caches off and warm.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from benchmarks.harness import Benchmark, Measure, median_seconds, register
from examples import train_cnn, train_transformer

CHAIN_NUMEL = 16 << 20
COMPILED_NOTE = "foo = compiled (torch.compile), cpu = eager foo: foo/cpu = the compiled speed-up"


def pointwise_chain(x: torch.Tensor) -> torch.Tensor:
    """Eight ops: two multiplies, two adds, sigmoid, tanh, relu, sqrt."""
    y = (x * 1.5 + 0.5).sigmoid() * x
    return (y.tanh() + 1).relu().sqrt()


def layer_norm_gelu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    return F.gelu(F.layer_norm(x, x.shape[-1:], weight, bias)) + residual


def compiled_against_eager(make: Callable[[], tuple[Callable, Callable]]) -> Measure:
    """Times the compiled and the eager op that `make` returns (compiled first, both on foo)."""

    def measure(repeat: int) -> tuple[float, float]:
        torch._dynamo.reset()
        compiled, eager = make()
        compiled_seconds, eager_seconds = median_seconds([(compiled, "foo"), (eager, "foo")], repeat)
        return compiled_seconds * 1e3, eager_seconds * 1e3

    return measure


def chain_ops() -> tuple[Callable, Callable]:
    x = torch.randn(CHAIN_NUMEL, device="foo")
    compiled = torch.compile(pointwise_chain)
    return lambda: compiled(x), lambda: pointwise_chain(x)


def layer_norm_ops() -> tuple[Callable, Callable]:
    x, residual = torch.randn(4096, 1024, device="foo"), torch.randn(4096, 1024, device="foo")
    weight, bias = torch.randn(1024, device="foo"), torch.randn(1024, device="foo")
    compiled = torch.compile(layer_norm_gelu)
    return lambda: compiled(x, weight, bias, residual), lambda: layer_norm_gelu(x, weight, bias, residual)


def training_step_ops(module, make_model: Callable[[], torch.nn.Module]) -> Callable[[], tuple[Callable, Callable]]:
    def make() -> tuple[Callable, Callable]:
        torch.manual_seed(0)
        model = make_model().to("foo")
        ((inputs, targets),) = module.synthetic_batches(1)
        compiled = module.training_step(torch.compile(copy.deepcopy(model)), "foo")
        eager = module.training_step(model, "foo")
        return lambda: compiled(inputs, targets), lambda: eager(inputs, targets)

    return make


def compile_time(repeat: int) -> tuple[float, float]:
    """Seconds to the first compiled training step of the small transformer: with Inductor's caches
    warm (foo column) and off (cpu column)."""

    def first_step(caches: bool) -> float:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = train_transformer.TinyLM().to("foo")
        batches = train_transformer.synthetic_batches(1)
        start = time.perf_counter()
        with torch._inductor.config.patch(force_disable_caches=not caches):
            train_transformer.train(torch.compile(model), "foo", batches)
        torch.foo.synchronize()
        return time.perf_counter() - start

    first_step(True)  # fills the caches
    return first_step(True), first_step(False)


ROWS = [
    ("compiled: pointwise chain of 8 ops", f"{CHAIN_NUMEL >> 20}M float32", compiled_against_eager(chain_ops), 20),
    ("compiled: layer_norm + GELU + residual", "4096x1024", compiled_against_eager(layer_norm_ops), 20),
    (
        "compiled: training step, small CNN",
        "batch 16, 3x32x32",
        compiled_against_eager(training_step_ops(train_cnn, train_cnn.SmallCNN)),
        20,
    ),
    (
        "compiled: training step, small transformer",
        "batch 8, 32 tokens",
        compiled_against_eager(training_step_ops(train_transformer, train_transformer.TinyLM)),
        20,
    ),
]

for _name, _size, _measure, _repeat in ROWS:
    register(Benchmark(_name, size=_size, unit="ms", measure=_measure, repeat=_repeat, note=COMPILED_NOTE))

register(
    Benchmark(
        "torch.compile time, small transformer step",
        size="first step",
        unit="s",
        measure=compile_time,
        repeat=1,
        note="foo = compile with Inductor's caches warm, cpu = with them off (a cold compile), "
        "foo/cpu = the caches' speed-up",
    )
)
