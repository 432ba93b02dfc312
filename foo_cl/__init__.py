"""foo-cl: every OpenCL device as a PyTorch device named "foo".

Importing this package loads the C++ extension (allocator, streams, kernels, CPU fallback), renames
PyTorch's PrivateUse1 backend to "foo", registers ``torch.foo`` and generates ``Tensor.foo()``,
``Tensor.is_foo``, ``Module.foo()`` and ``UntypedStorage.foo()``. PyTorch also imports it on
``import torch`` through the ``torch.backends`` entry point.
"""

import atexit
import time


def _autoload() -> None:
    """Entry point of the ``torch.backends`` group: importing the package did the registration.

    NOTE: defined before ``import torch``: when ``import foo_cl`` comes first, torch's own import
    loads this entry point while foo_cl is still partially initialised."""


import torch

# _C registers the runtime and the kernels.
from foo_cl import _C, _without_fp64, device_module, distributed, inductor

__version__ = "0.1.0"

torch.utils.rename_privateuse1_backend("foo")
torch._register_device_module("foo", device_module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
_without_fp64.install()
distributed._register()
inductor.install()


@atexit.register
def _let_autograd_threads_finish() -> None:
    """NOTE: at exit, foo's autograd device thread may still be dropping its last graph task, which
    takes the GIL; if the interpreter is finalizing by then, the thread is torn down inside a
    destructor and the process aborts ("terminate called without an active exception", see
    pytorch/pytorch#38228). Giving up the GIL for a moment before finalization lets it finish."""
    if _C._is_initialized():
        time.sleep(0.02)
