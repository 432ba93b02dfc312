"""torch.compile on foo: Inductor generates OpenCL C for foo's fused pointwise and reduction kernels.

Registration is lazy, so that ``import torch`` (which imports foo_cl) does not import Dynamo or
Inductor: import hooks installed by :func:`install` register foo's Dynamo device interface when
``torch._dynamo.device_interface`` loads, and its code generator (foo_cl.inductor.codegen: device
op overrides, scheduling, wrapper codegen) when ``torch._inductor.compile_fx`` loads, before
anything asks for them.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any


def _register_device_interface(module: ModuleType) -> None:
    """Registers foo with Dynamo, whose device_interface `module` is."""
    import torch

    from foo_cl.inductor.device_interface import FooInterface

    module.register_interface_for_device("foo", FooInterface)
    for index in range(torch.foo.device_count()):
        module.register_interface_for_device(f"foo:{index}", FooInterface)


def _register_backend(module: ModuleType) -> None:
    """Registers foo's code generator with Inductor, once its compile_fx `module` has run."""
    from foo_cl.inductor import codegen

    codegen.register()


# NOTE: each registration runs right after its module finished loading: Dynamo's device_interface
# loads halfway through Inductor's utils, which the code generator needs; compile_fx, which runs
# before Inductor looks for backends, loads after the modules the code generator builds on.
_HOOKS = {
    "torch._dynamo.device_interface": _register_device_interface,
    "torch._inductor.compile_fx": _register_backend,
}


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Runs a module's registration right after the module runs."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        register = _HOOKS.get(fullname)
        if register is None:
            return None
        # Find the module's real spec past this finder.
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_register(module: ModuleType) -> None:
            exec_module(module)
            register(module)

        spec.loader.exec_module = exec_and_register  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Registers foo with Dynamo and Inductor: now for their modules already loaded, else as each loads."""
    for name, register in _HOOKS.items():
        if name in sys.modules:
            register(sys.modules[name])
    if not any(isinstance(finder, _RegisterOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport())
