"""foo-cl: every OpenCL device as a PyTorch device named "foo".

Importing this package loads the C++ extension (allocator, streams, kernels, CPU fallback), renames
PyTorch's PrivateUse1 backend to "foo", registers ``torch.foo`` and generates ``Tensor.foo()``,
``Tensor.is_foo``, ``Module.foo()`` and ``UntypedStorage.foo()``. PyTorch also imports it on
``import torch`` through the ``torch.backends`` entry point.
"""

import torch

from foo_cl import (
    _C,  # noqa: F401  (registers the runtime and the kernels)
    device_module,
)

__version__ = "0.1.0"

torch.utils.rename_privateuse1_backend("foo")
torch._register_device_module("foo", device_module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)


def _autoload() -> None:
    """Entry point of the ``torch.backends`` group: importing the package did the registration."""
