"""Float32 where PyTorch itself computes in float64, on foo devices without float64.

NOTE: torch 2.13 prints a floating tensor after converting values to float64
(``torch._tensor_str.tensor_totype``), and ``GradScaler.unscale_`` takes the reciprocal of its scale in
float64. Both make an exception for devices without float64 (MPS, XPU devices without fp64) but cannot
know foo's. On a foo device without ``cl_khr_fp64`` (Mesa's llvmpipe, many mobile GPUs) these two use
float32 as they do on MPS: the printed digits are the same (float32 holds every value of a float32,
float16 or bfloat16 tensor), and GradScaler's scales are powers of two, whose float32 reciprocal is
exact. Every other float64 use on such a device raises, naming the missing extension.
"""

import functools

import torch
from torch import _tensor_str
from torch.amp.grad_scaler import GradScaler

_tensor_totype = _tensor_str.tensor_totype
_unscale = GradScaler.unscale_


@functools.cache
def _lacks_fp64(device: torch.device) -> bool:
    return device.type == "foo" and not torch.foo.get_device_properties(device).has_fp64


def _tensor_totype_on_foo(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.float) if _lacks_fp64(t.device) else _tensor_totype(t)


class _ScaleWithoutFp64(torch.Tensor):
    """GradScaler's scale while ``unscale_`` runs: ``.double()`` keeps it float32."""

    def double(self, memory_format: torch.memory_format = torch.preserve_format) -> torch.Tensor:
        return self.as_subclass(torch.Tensor).clone(memory_format=memory_format)


def _unscale_on_foo(self: GradScaler, optimizer: torch.optim.Optimizer) -> None:
    scale = self._scale
    if scale is None or not _lacks_fp64(scale.device):
        return _unscale(self, optimizer)
    self._scale = scale.as_subclass(_ScaleWithoutFp64)
    try:
        return _unscale(self, optimizer)
    finally:
        self._scale = scale


def install() -> None:
    _tensor_str.tensor_totype = _tensor_totype_on_foo
    GradScaler.unscale_ = _unscale_on_foo
