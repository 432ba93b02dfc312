"""Training rows: conv2d forward and backward (batch 32, 64->64 channels, 56x56, 3x3), batch_norm,
layer_norm, cross_entropy, scaled dot-product attention, an Adam step over a ResNet-18-sized
parameter list, and one training step of each example model (examples/).
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

from benchmarks.harness import Op, benchmark
from examples import train_cnn, train_transformer

CONV_FLOPS = 2 * 32 * 64 * 64 * 9 * 56 * 56


def _randn(*shape: int, device: str) -> torch.Tensor:
    return torch.randn(shape).to(device)


@benchmark("conv2d forward", size="32x64x56x56, 64 3x3", unit="GFLOP/s", work=CONV_FLOPS, repeat=5)
def conv_forward(device: str) -> Op:
    x, w = _randn(32, 64, 56, 56, device=device), _randn(64, 64, 3, 3, device=device)
    return lambda: F.conv2d(x, w, padding=1)


@benchmark("conv2d backward", size="32x64x56x56, 64 3x3", unit="GFLOP/s", work=2 * CONV_FLOPS, repeat=5)
def conv_backward(device: str) -> Op:
    x = _randn(32, 64, 56, 56, device=device).requires_grad_()
    w = _randn(64, 64, 3, 3, device=device).requires_grad_()
    y = F.conv2d(x, w, padding=1)
    g = torch.randn_like(y)
    return lambda: torch.autograd.grad(y, (x, w), g, retain_graph=True)


@benchmark("batch_norm train", size="32x64x56x56", unit="GB/s", work=2 * 4 * 32 * 64 * 56 * 56)
def batch_norm(device: str) -> Op:
    x = _randn(32, 64, 56, 56, device=device)
    mean, var = torch.zeros(64, device=device), torch.ones(64, device=device)
    return lambda: F.batch_norm(x, mean, var, training=True)


@benchmark("layer_norm", size="4096x1024", unit="GB/s", work=2 * 4 * 4096 * 1024)
def layer_norm(device: str) -> Op:
    x, w, b = _randn(4096, 1024, device=device), _randn(1024, device=device), _randn(1024, device=device)
    return lambda: F.layer_norm(x, (1024,), w, b)


@benchmark("cross_entropy", size="4096x1000", unit="GB/s", work=4 * 4096 * 1000)
def cross_entropy(device: str) -> Op:
    logits, target = _randn(4096, 1000, device=device), torch.randint(0, 1000, (4096,)).to(device)
    return lambda: F.cross_entropy(logits, target)


@benchmark(
    "scaled_dot_product_attention", size="8x8 heads, 256x64, causal", unit="GFLOP/s", work=4 * 64 * 256 * 256 * 64
)
def attention(device: str) -> Op:
    q, k, v = (_randn(8, 8, 256, 64, device=device) for _ in range(3))
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _resnet18_shapes() -> list[tuple[int, ...]]:
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    for cin, cout, blocks in [(64, 64, 2), (64, 128, 2), (128, 256, 2), (256, 512, 2)]:
        for b in range(blocks):
            first = cin if b == 0 else cout
            shapes += [(cout, first, 3, 3), (cout,), (cout,), (cout, cout, 3, 3), (cout,), (cout,)]
            if b == 0 and cin != cout:
                shapes += [(cout, cin, 1, 1), (cout,), (cout,)]
    return shapes + [(1000, 512), (1000,)]


def _adam(device: str, fused: bool) -> Op:
    params = [torch.nn.Parameter(_randn(*shape, device=device)) for shape in _resnet18_shapes()]
    for p in params:
        p.grad = torch.randn_like(p)
    return torch.optim.Adam(params, lr=1e-3, fused=fused).step


@benchmark("Adam step (foreach)", size="ResNet-18 parameters (11.7M)", unit="ms", work=1, repeat=5)
def adam_step(device: str) -> Op:
    return _adam(device, fused=False)


@benchmark("Adam step fused (vs cpu foreach)", size="ResNet-18 parameters (11.7M)", unit="ms", work=1, repeat=5)
def fused_adam_step(device: str) -> Op:
    """fused=True on foo against the CPU's default (foreach) Adam, as the Adam target asks."""
    return _adam(device, fused=device == "foo")


def _training_step(module, model: torch.nn.Module, device: str) -> Op:
    """One step of a training loop: the model is on `device` and its Adam built (by the warm-up calls, its state
    too) before the timed calls, each of which moves a batch to the device and trains on it."""
    step = module.training_step(copy.deepcopy(model), device)
    ((inputs, targets),) = module.synthetic_batches(1)
    return lambda: step(inputs, targets)


@benchmark("training step, small CNN", size="batch 16, 3x32x32", unit="ms", work=1, repeat=20)
def cnn_step(device: str) -> Op:
    torch.manual_seed(0)
    return _training_step(train_cnn, train_cnn.SmallCNN(), device)


@benchmark("training step, small transformer", size="batch 8, 32 tokens", unit="ms", work=1, repeat=20)
def transformer_step(device: str) -> Op:
    torch.manual_seed(0)
    return _training_step(train_transformer, train_transformer.TinyLM(), device)
