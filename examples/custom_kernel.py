"""A user OpenCL kernel as a PyTorch custom operator: foo_cl.opencl.Kernel runs it on foo tensors,
torch.library makes it an operator with a CPU implementation, autograd and a fake implementation,
so it trains and torch.compile traces through it.

    python -m examples.custom_kernel
"""

from __future__ import annotations

import torch

import foo_cl  # noqa: F401  (registers the "foo" device)
from foo_cl.opencl import Kernel

# out = x * sigmoid(beta * x) (swish), elementwise over views of any offset. A tensor argument is a
# pointer plus a byte offset (foo's kernel ABI); FOO_PTR of common.clh applies the offset.
_SWISH = Kernel(
    """
    #include "common.clh"

    __kernel void swish(__global float* out, ulong out_offset, __global const float* x, ulong x_offset,
                        float beta, uint n) {
      __global float* o = FOO_PTR(float, out, out_offset);
      __global const float* v = FOO_PTR(const float, x, x_offset);
      for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        o[i] = v[i] / (1.0f + exp(-beta * v[i]));
      }
    }
    """,
    "swish",
)


@torch.library.custom_op("foo_cl_examples::swish", mutates_args=())
def swish(x: torch.Tensor, beta: float) -> torch.Tensor:
    """x * sigmoid(beta * x); the CPU implementation."""
    return x * torch.sigmoid(beta * x)


@swish.register_kernel("foo")
def _(x: torch.Tensor, beta: float) -> torch.Tensor:
    if x.dtype != torch.float32:
        raise TypeError(f"foo_cl_examples::swish takes float32 on foo, got {x.dtype}")
    x = x.contiguous()
    out = torch.empty_like(x)
    _SWISH(min(x.numel(), 1 << 16), out, x, beta, x.numel())
    return out


@swish.register_fake
def _(x: torch.Tensor, beta: float) -> torch.Tensor:
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _setup_context(ctx, inputs: tuple, output: torch.Tensor) -> None:
    x, beta = inputs
    ctx.save_for_backward(x)
    ctx.beta = beta


def _backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
    (x,) = ctx.saved_tensors
    s = torch.sigmoid(ctx.beta * x)
    return grad * (s + ctx.beta * x * s * (1 - s)), None


swish.register_autograd(_backward, setup_context=_setup_context)


class Swish(torch.nn.Module):
    def __init__(self, beta: float) -> None:
        super().__init__()
        self.beta = beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return swish(x, self.beta)


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(4, 1000)
    model = torch.nn.Linear(1000, 10)
    for device in ("cpu", "foo"):
        m = torch.nn.Sequential(Swish(1.5), torch.nn.Linear(1000, 10)).to(device)
        m[1].load_state_dict(model.state_dict())
        loss = torch.compile(m, backend="aot_eager", fullgraph=True)(x.to(device)).sum()
        loss.backward()
        print(f"{device:>3}: loss {loss.item():.6f}  |grad| {m[1].weight.grad.norm().item():.6f}")


if __name__ == "__main__":
    main()
