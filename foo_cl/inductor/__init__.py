"""torch.compile on foo: Inductor generates OpenCL C for foo's fused pointwise and reduction kernels.

Registration is lazy, so that ``import torch`` (which imports foo_cl) does not import Dynamo or
Inductor:

- Dynamo's device interface for "foo" is registered as soon as ``torch._dynamo.device_interface``
  is imported (an import hook installed by :func:`install`), before Inductor asks for it.
- Inductor finds foo's scheduling and wrapper codegen as attributes of ``torch.foo``
  (``torch.utils.backend_registration``); the first lookup imports :mod:`foo_cl.inductor.codegen`,
  which also registers foo's device op overrides.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

# What Inductor's init_backend_registration looks up on torch.foo.
BACKEND_ATTRIBUTES = ("Scheduling", "PythonWrapperCodegen", "CppWrapperCodegen", "WrapperFxCodegen")

_DEVICE_INTERFACE_MODULE = "torch._dynamo.device_interface"


def backend_attribute(name: str) -> Any:
    """torch.foo.<name> for the names in BACKEND_ATTRIBUTES: the codegen classes Inductor uses."""
    from foo_cl.inductor import codegen

    return codegen.BACKEND[name]


def _register_device_interface(module: ModuleType) -> None:
    import torch

    from foo_cl.inductor.device_interface import FooInterface

    module.register_interface_for_device("foo", FooInterface)
    for index in range(torch.foo.device_count()):
        module.register_interface_for_device(f"foo:{index}", FooInterface)


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Registers the device interface right after Dynamo's device_interface module runs."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _DEVICE_INTERFACE_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_register(module: ModuleType) -> None:
            exec_module(module)
            _register_device_interface(module)

        spec.loader.exec_module = exec_and_register  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Registers the device interface now if Dynamo's module is loaded, else when it is imported."""
    module = sys.modules.get(_DEVICE_INTERFACE_MODULE)
    if module is not None:
        _register_device_interface(module)
    elif not any(isinstance(finder, _RegisterOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport())
