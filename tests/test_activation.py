"""Gradients of the activations against the CPU: forward on foo with requires_grad, backward with the same
random incoming gradient on both devices, x.grad compared. With the fallback forbidden, this proves
their backward kernels (threshold_backward, gelu_backward, elu_backward, ...) native. Backward takes an
explicit gradient (no .sum()), so the test needs no reduction kernel.
"""

import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, assert_close_to_cpu, dtype_id, forward_backward

pytestmark = pytest.mark.usefixtures("no_fallback")

# The kinks and saturation points of the activations below, then ordinary values.
KINKS = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.5, -0.5, 2.0, -2.0, 2.5, 10.0, 20.0, -20.0, 30.0, -30.0]
# logit's domain: its eps clamps below 1e-6 and above 1 - 1e-6 (gradient 0 there), 0 and 1 themselves.
PROBABILITIES = [0.0, 1e-8, 1e-6, 2e-6, 0.5, 0.999, 1 - 1e-7, 1.0]

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "mish": F.mish,
    "softplus": F.softplus,
    "softplus_beta_threshold": lambda x: F.softplus(x, beta=2.0, threshold=5.0),
    "hardtanh": lambda x: F.hardtanh(x, min_val=-2.0, max_val=2.5),
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "elu": lambda x: F.elu(x, alpha=0.5),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=0.7),
    "leaky_relu": lambda x: F.leaky_relu(x, negative_slope=0.2),
    "logsigmoid": F.logsigmoid,
    "logit_eps": lambda x: torch.logit(x, eps=1e-6),
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "threshold": lambda x: F.threshold(x, threshold=0.5, value=-1.0),
}

# In place on a non-leaf; some of these backward formulas use the result instead of the input
# (elu_backward with is_result=True, sigmoid_backward, tanh_backward).
IN_PLACE_ACTIVATIONS = {
    "relu_": lambda x: F.relu(x, inplace=True),
    "hardtanh_": lambda x: F.hardtanh(x, min_val=-2.0, max_val=2.5, inplace=True),
    "elu_": lambda x: F.elu(x, alpha=0.5, inplace=True),
    "selu_": lambda x: F.selu(x, inplace=True),
    "celu_": lambda x: F.celu(x, alpha=0.7, inplace=True),
    "leaky_relu_": lambda x: F.leaky_relu(x, negative_slope=0.2, inplace=True),
    "threshold_": lambda x: F.threshold(x, threshold=0.5, value=-1.0, inplace=True),
    "sigmoid_": torch.Tensor.sigmoid_,
    "tanh_": torch.Tensor.tanh_,
}


def inputs(name: str, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """x (the kinks, then ordinary values) and the incoming gradient, on the CPU."""
    g = torch.Generator().manual_seed(0)
    if name.startswith("logit"):
        x = torch.cat(
            [torch.tensor(PROBABILITIES, dtype=torch.float64), torch.rand(40, generator=g, dtype=torch.float64)]
        )
    else:
        x = torch.cat([torch.tensor(KINKS, dtype=torch.float64), 4 * torch.randn(40, generator=g, dtype=torch.float64)])
    grad = torch.randn(x.shape, generator=g, dtype=torch.float64)
    return x.to(dtype).view(4, -1), grad.to(dtype).view(4, -1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("name", [*ACTIVATIONS, *IN_PLACE_ACTIVATIONS])
def test_gradient_matches_cpu(name, dtype):
    # An in-place activation runs on a non-leaf copy of x: autograd forbids it on a leaf.
    fn = (lambda x: IN_PLACE_ACTIVATIONS[name](x * 1.0)) if name in IN_PLACE_ACTIVATIONS else ACTIVATIONS[name]
    x, grad = inputs(name, dtype)
    y_cpu, (dx_cpu,) = forward_backward(fn, [x], grad)
    y_foo, (dx_foo,) = forward_backward(fn, [x.to(FOO)], grad)
    assert_close_to_cpu(y_foo, y_cpu)
    assert_close_to_cpu(dx_foo, dx_cpu)
