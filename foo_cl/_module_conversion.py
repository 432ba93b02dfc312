"""Keeps Parameters themselves (and so tied weights) when a module moves between foo and another device.

NOTE: torch 2.13's TensorImpl::has_compatible_shallow_copy_type lists CPU, CUDA, MPS, HIP, XPU, HPU and
MTIA as dense backends but not PrivateUse1, so ``nn.Module._apply`` cannot assign ``param.data`` across
foo and CPU: it wraps every converted tensor in a new Parameter, and two modules sharing one Parameter
(a language model's tied embedding and output weights) end up with two. For conversions that move
tensors to or from foo, module conversion swaps each Parameter's contents in place instead
(``torch.__future__``'s swap_module_params_on_conversion, the mechanism PyTorch provides for devices
whose tensors cannot share ``.data``), so every Parameter keeps its identity as it does on CUDA:
shared Parameters stay shared and optimizers built beforehand keep working. Conversions that do not
involve foo behave exactly as before.
"""

import threading
from collections.abc import Callable

import torch

_module_apply = torch.nn.Module._apply
_state = threading.local()


def _moves_across_foo(module: torch.nn.Module, fn: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """Whether ``fn`` takes a tensor of the module to or from foo, judged on an empty tensor of each
    (device, dtype) the module holds."""
    kinds = {(t.device, t.dtype) for t in (*module.parameters(), *module.buffers())}
    for device, dtype in kinds:
        try:
            with torch.no_grad():
                converted = fn(torch.empty(0, device=device, dtype=dtype))
        except Exception:  # noqa: BLE001, S112 (a conversion that needs real data: judged as not crossing)
            continue
        moved = isinstance(converted, torch.Tensor) and converted.device.type != device.type
        if moved and "foo" in (device.type, converted.device.type):
            return True
    return False


def _apply(self: torch.nn.Module, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> torch.nn.Module:
    if getattr(_state, "active", False) or torch.__future__.get_swap_module_params_on_conversion():
        return _module_apply(self, fn, recurse)
    _state.active = True  # children's _apply calls come back here: decide once, at the top
    try:
        if not _moves_across_foo(self, fn):
            return _module_apply(self, fn, recurse)
        torch.__future__.set_swap_module_params_on_conversion(True)
        try:
            return _module_apply(self, fn, recurse)
        finally:
            torch.__future__.set_swap_module_params_on_conversion(False)
    finally:
        _state.active = False


def install() -> None:
    torch.nn.Module._apply = _apply
