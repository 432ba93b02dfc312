"""OpenCL interop: pyopencl on foo's own context and queues, memory shared both ways, and user kernels.

- ``context()``, ``queue()`` and ``device()`` return the pyopencl objects for the very handles foo
  uses (``cl_context``, the stream's ``cl_command_queue``, ``cl_device_id``), not copies.
- ``to_pyopencl(tensor)`` is a ``pyopencl.array.Array`` over the tensor's memory and
  ``from_pyopencl(array)`` a foo tensor over the array's. Both share memory; each keeps the other
  side alive.
- ``Kernel(source, name)`` compiles OpenCL C through foo's program cache and launches it on foo
  tensors on the current stream.

Memory. foo's allocator carves tensors out of larger OpenCL buffers, so a shared tensor is a
*buffer plus byte offset*, not a sub-buffer (sub-buffers must start on
``CL_DEVICE_MEM_BASE_ADDR_ALIGN``, which views do not). The array's ``base_data`` is the whole
buffer and ``offset`` the tensor's byte offset in it: pyopencl's kernels and copies honour it,
``array.data`` raises (``ArrayHasOffsetError``) when the offset is not 0.

Ordering. foo's streams are in-order queues. Work pyopencl enqueues on ``queue()`` (the current
stream's queue) and foo's own ops are ordered with each other without ``synchronize()``; arrays
made by ``to_pyopencl`` use that queue. When an array lives on another queue, ``from_pyopencl``
and ``to_pyopencl(tensor, queue=q)`` order the two queues once, at the conversion (a marker on one,
a barrier on the other); for later work across the two queues, use events
(``pyopencl.enqueue_marker``, ``torch.foo.Event``) or ``torch.foo.synchronize()``.

pyopencl is optional (``pip install pyopencl``); ``Kernel`` does not need it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from foo_cl import _C
from foo_cl._utils import DeviceLike, _checked_index

__all__ = ["Kernel", "LocalMemory", "context", "device", "from_pyopencl", "queue", "to_pyopencl"]

_NUMPY_DTYPES = {
    torch.float32: np.float32,
    torch.float64: np.float64,
    torch.float16: np.float16,
    torch.int8: np.int8,
    torch.uint8: np.uint8,
    torch.int16: np.int16,
    torch.uint16: np.uint16,
    torch.int32: np.int32,
    torch.uint32: np.uint32,
    torch.int64: np.int64,
    torch.uint64: np.uint64,
    torch.bool: np.bool_,
    torch.complex64: np.complex64,
    torch.complex128: np.complex128,
}
_TORCH_DTYPES = {np.dtype(v): k for k, v in _NUMPY_DTYPES.items()}


def _pyopencl() -> Any:
    try:
        import pyopencl
        import pyopencl.array
    except ImportError as e:
        raise ImportError("foo_cl.opencl needs pyopencl for this: pip install pyopencl") from e
    return pyopencl


def context(device: DeviceLike = None) -> Any:
    """The ``pyopencl.Context`` foo uses for a foo device (default: the current one)."""
    return _pyopencl().Context.from_int_ptr(_C._cl_handles(_checked_index(device))["context"])


def device(device: DeviceLike = None) -> Any:
    """The ``pyopencl.Device`` behind a foo device (default: the current one)."""
    return _pyopencl().Device.from_int_ptr(_C._cl_handles(_checked_index(device))["device"])


def queue(stream: torch.Stream | None = None) -> Any:
    """The ``pyopencl.CommandQueue`` of a foo stream (default: the current stream of the current device)."""
    if stream is None:
        stream = torch.foo.current_stream()
    if stream.device.type != "foo":
        raise ValueError(f"Expected a foo stream, but got a stream of {stream.device}")
    return _queue_of(stream)


def _queue_of(stream: torch.Stream) -> Any:
    return _pyopencl().CommandQueue.from_int_ptr(_C._cl_queue(stream.device_index, stream.stream_id))


def _order_after(waiting: Any, signalling: Any) -> None:
    """Makes later work on queue `waiting` start after everything enqueued so far on `signalling`."""
    if waiting.int_ptr != signalling.int_ptr:
        cl = _pyopencl()
        marker = cl.enqueue_marker(signalling)
        signalling.flush()  # OpenCL: an event waited for on another queue needs its queue flushed
        cl.enqueue_barrier(waiting, wait_for=[marker])


def to_pyopencl(tensor: torch.Tensor, queue: Any = None) -> Any:
    """A ``pyopencl.array.Array`` sharing a contiguous foo tensor's memory (buffer plus offset).

    The array uses `queue` (default: the current stream's queue) and keeps the tensor's memory
    allocated as long as it or any array made from it lives."""
    cl = _pyopencl()
    if tensor.device.type != "foo":
        raise ValueError(f"to_pyopencl expects a foo tensor, but got a tensor on {tensor.device}")
    if not tensor.is_contiguous():
        raise ValueError("to_pyopencl needs a contiguous tensor (pyopencl arrays are dense); call .contiguous() first")
    if tensor.dtype not in _NUMPY_DTYPES:
        raise TypeError(f"to_pyopencl: {tensor.dtype} has no numpy dtype for a pyopencl array")
    foo_queue = _queue_of(torch.foo.current_stream(tensor.device))
    if queue is None:
        queue = foo_queue
    else:
        _order_after(queue, foo_queue)
    dtype = np.dtype(_NUMPY_DTYPES[tensor.dtype])
    if tensor.numel() == 0:
        return cl.array.empty(queue, tuple(tensor.shape), dtype)
    mem, offset = _C._cl_buffer(tensor)
    buffer = cl.Buffer.from_int_ptr(mem)
    buffer._foo_tensor = tensor  # every array over this Buffer object keeps the tensor's block allocated
    strides = tuple(s * dtype.itemsize for s in tensor.stride())
    return cl.array.Array(queue, tuple(tensor.shape), dtype, data=buffer, offset=offset, strides=strides)


def from_pyopencl(array: Any) -> torch.Tensor:
    """A foo tensor sharing a ``pyopencl.array.Array``'s memory, keeping the array alive.

    The array must live in a context foo uses (``foo_cl.opencl.context()``); its device is the
    tensor's."""
    cl = _pyopencl()
    if not isinstance(array, cl.array.Array):
        raise TypeError(f"from_pyopencl expects a pyopencl.array.Array, got {type(array).__name__}")
    index = _C._device_of_context(array.context.int_ptr)
    if index < 0:
        raise ValueError(
            "from_pyopencl: the array's context is not one foo uses; allocate it with "
            "foo_cl.opencl.context() or foo_cl.opencl.queue()"
        )
    dtype = _TORCH_DTYPES.get(array.dtype)
    if dtype is None:
        raise TypeError(f"from_pyopencl: numpy dtype {array.dtype} has no torch dtype")
    itemsize = array.dtype.itemsize
    if any(s % itemsize or s < 0 for s in array.strides):
        raise ValueError(
            f"from_pyopencl: strides {array.strides} are not non-negative multiples of the item size {itemsize}"
        )
    if array.size == 0:
        return torch.empty(array.shape, dtype=dtype, device=torch.device("foo", index))
    if not isinstance(array.base_data, cl.MemoryObjectHolder):
        raise TypeError("from_pyopencl: only arrays in OpenCL buffers are supported (not SVM)")
    if array.queue is not None:
        _order_after(_queue_of(torch.foo.current_stream(index)), array.queue)
    extent = itemsize + sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
    return _C._tensor_from_buffer(
        index,
        array.base_data.int_ptr,
        array.offset,
        extent,  # the bytes the array spans: its storage, not the rest of the buffer
        list(array.shape),
        [s // itemsize for s in array.strides],
        dtype,
        array,
    )


# ---- user kernels ----------------------------------------------------------------------------

_SCALARS = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "float": np.float32,
    "double": np.float64,
    "half": np.float16,
}
_VECTOR = re.compile(r"^([a-z]+?)(2|3|4|8|16)?$")


def _scalar_and_lanes(type_name: str) -> tuple[Any, int]:
    """The numpy scalar type and lane count of an OpenCL scalar or vector type ("float4": float32,
    4); None for other types (structs, typedefs)."""
    match = _VECTOR.match(type_name)
    scalar = _SCALARS.get(match.group(1)) if match else None
    return scalar, int(match.group(2) or 1) if scalar else 1


def _pointer_takes(type_name: str, dtype: torch.dtype) -> bool:
    """Whether a __global pointer parameter of type `type_name` ("float*") suits a tensor of `dtype`.

    char, uchar and void pointers take any tensor (bytes), as do pointers to structs and typedefs
    foo cannot see into. Otherwise the pointee's element needs the dtype's size and kind (integer
    or floating; signedness is free), a vector pointee (float4) reading that many elements;
    bfloat16 goes to ushort or short, a complex dtype to float2 or double2."""
    pointee = type_name.rstrip("*")
    if pointee in ("char", "uchar", "void"):
        return True
    scalar, lanes = _scalar_and_lanes(pointee)
    if scalar is None:
        return True
    element = np.dtype(scalar)
    if dtype == torch.bfloat16:
        return pointee in ("ushort", "short")
    if dtype.is_complex:
        return element.kind == "f" and lanes == 2 and 2 * element.itemsize == dtype.itemsize
    return element.itemsize == dtype.itemsize and (element.kind == "f") == dtype.is_floating_point


class LocalMemory:
    """A ``__local`` pointer argument of a user kernel: `nbytes` of work-group local memory."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = int(nbytes)


class Kernel:
    """An OpenCL C kernel of your own, launched on foo tensors.

    ``Kernel(source, name, options="")`` compiles `source` (OpenCL C 1.2; ``#include "common.clh"``
    and foo's other kernel headers work) through foo's program cache, in memory and on disk, once
    per device. ``k(global_size, *args, local_size=None)`` enqueues kernel `name` on the current
    stream of the tensors' device (the current device when no tensor is given).

    Arguments follow foo's kernel ABI. A tensor fills two parameters, a ``__global T*`` and a
    ``ulong`` byte offset into it, so views need no copy (``FOO_PTR(T, p, offset)`` of
    common.clh, or ``(__global T*)((__global char*)p + offset)``). The kernel sees the tensor as
    dense memory, so it must be contiguous, and ``T`` must match its dtype (``char*``, ``uchar*``
    and ``void*`` take any). A number or numpy scalar fills
    a by-value parameter and is converted to its declared type (``int``, ``float``, ``ulong``,
    vectors as sequences); ``LocalMemory(n)`` fills a ``__local`` pointer; ``bytes`` fills any
    parameter as they are (a struct, say).

    Example::

        scale = Kernel('''
            __kernel void scale(__global float* x, ulong x_off, float a, uint n) {
              __global float* p = (__global float*)((__global char*)x + x_off);
              size_t i = get_global_id(0);
              if (i < n) p[i] *= a;
            }''', "scale")
        scale(x.numel(), x, 2.0, x.numel())
    """

    def __init__(self, source: str, name: str, options: str = "") -> None:
        self.source = source
        self.name = name
        self.options = options
        self._params: dict[int, list[tuple[str, str, str]]] = {}
        self._packers: dict[int, list[Callable[[Any, int], tuple[int, Any]]]] = {}

    def __repr__(self) -> str:
        return f"foo_cl.opencl.Kernel({self.name!r})"

    def params(self, device: DeviceLike = None) -> list[tuple[str, str, str]]:
        """The kernel's parameters on a foo device, as (address space, type, name); compiles it there."""
        index = _checked_index(device)
        if index not in self._params:
            self._params[index] = _C._user_kernel_params(index, self.source, self.name, self.options)
        return self._params[index]

    def __call__(
        self, global_size: int | tuple[int, ...], *args: Any, local_size: int | tuple[int, ...] | None = None
    ) -> None:
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        index = tensors[0].device.index if tensors and tensors[0].device.type == "foo" else _C._current_device()
        packers = self._packers.get(index)
        if packers is None:
            packers = self._packers[index] = self._argument_packers(self.params(index))
        # Each argument is checked in order before the count, so the first wrong one is named.
        packed = [pack(arg, index) for pack, arg in zip(packers, args)]
        if len(args) != len(packers):
            raise TypeError(f"{self.name}() takes {len(packers)} arguments but was given {len(args)}")
        global_size = (global_size,) if isinstance(global_size, int) else tuple(global_size)
        local = () if local_size is None else (local_size,) if isinstance(local_size, int) else tuple(local_size)
        _C._launch_user_kernel(index, self.source, self.name, self.options, packed, list(global_size), list(local))

    def _argument_packers(self, params: list[tuple[str, str, str]]) -> list[Callable[[Any, int], tuple[int, Any]]]:
        """One packer per argument, from the parameters: what `_C._launch_user_kernel` takes for it
        (0: a buffer address, 1: value bytes, 2: local bytes). The signature is checked here, once
        per device, and each argument at every call."""
        packers = []
        p = 0
        while p < len(params):
            space, type_name, pname = params[p]
            where = f"{self.name}() argument {len(packers)} ({type_name} {pname})"
            if space == "constant":
                raise TypeError(
                    f"{where}: foo passes tensors as __global pointers (a __constant one would take the "
                    "tensor's whole memory segment, past the device's constant-buffer size); declare it "
                    "__global const"
                )
            if space == "global":
                if p + 1 >= len(params) or params[p + 1][1] != "ulong":
                    raise TypeError(
                        f"{where}: a tensor parameter is followed by a ulong byte offset in foo's kernel ABI "
                        f"(__global T* {pname}, ulong {pname}_offset)"
                    )
                packers.append(_buffer_packer(type_name, where))
                p += 2  # the pointer and its byte offset
            elif space == "local":
                packers.append(_local_packer(where))
                p += 1
            else:
                packers.append(_value_packer(type_name, where))
                p += 1
        return packers


def _buffer_packer(type_name: str, where: str) -> Callable[[Any, int], tuple[int, int]]:
    takes: dict[torch.dtype, bool] = {}  # _pointer_takes per dtype seen

    def pack(arg: Any, index: int) -> tuple[int, int]:
        if not isinstance(arg, torch.Tensor):
            raise TypeError(f"{where}: expected a foo tensor, got {type(arg).__name__}")
        if arg.device.type != "foo":
            raise ValueError(f"{where}: expected a foo tensor, but got a tensor on {arg.device}")
        if arg.device.index != index:
            raise ValueError(
                f"{where}: expected all tensors to be on the same device, found foo:{index} and {arg.device}"
            )
        if not arg.is_contiguous():
            raise ValueError(f"{where}: the kernel sees a tensor as dense memory; pass .contiguous()")
        if arg.dtype not in takes:
            takes[arg.dtype] = _pointer_takes(type_name, arg.dtype)
        if not takes[arg.dtype]:
            raise TypeError(f"{where}: a {type_name} parameter cannot take a {arg.dtype} tensor")
        return 0, arg.data_ptr()

    return pack


def _local_packer(where: str) -> Callable[[Any, int], tuple[int, int]]:
    def pack(arg: Any, index: int) -> tuple[int, int]:
        if not isinstance(arg, LocalMemory):
            raise TypeError(f"{where}: a __local pointer takes foo_cl.opencl.LocalMemory(nbytes)")
        return 2, arg.nbytes

    return pack


def _value_packer(type_name: str, where: str) -> Callable[[Any, int], tuple[int, bytes]]:
    scalar, count = _scalar_and_lanes(type_name)
    integral = scalar is not None and np.dtype(scalar).kind in "iu"

    def pack(arg: Any, index: int) -> tuple[int, bytes]:
        if isinstance(arg, bytes):
            return 1, arg
        if scalar is None:
            raise TypeError(f"{where}: foo cannot convert to {type_name}; pass the argument's bytes")
        if isinstance(arg, torch.Tensor):
            raise TypeError(f"{where}: takes a number, got a tensor")
        try:
            if count == 1 and type(arg) in (int, float, bool):  # the common case, without numpy arrays
                if integral and type(arg) is float and not arg.is_integer():
                    raise ValueError  # no silent truncation of 2.5 to 2
                return 1, scalar(arg).tobytes()
            values = np.asarray(arg)
            if values.size != count or values.dtype.kind not in "biuf":
                raise ValueError
            items = values.reshape(-1).tolist()
            if integral and any(isinstance(v, float) and not v.is_integer() for v in items):
                raise ValueError
            converted = np.array([scalar(v) for v in items], dtype=scalar)
        except (ValueError, OverflowError, TypeError):
            raise TypeError(f"{where}: cannot pass {arg!r} as {type_name}") from None
        if count == 3:  # a 3-vector takes the space of a 4-vector
            converted = np.append(converted, scalar(0))
        return 1, converted.tobytes()

    return pack
