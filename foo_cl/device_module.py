"""torch.foo: the foo device module, mirroring torch.cuda where it makes sense.

Devices, streams and events, random number generators, memory statistics, and foo-cl's own
controls (CPU-fallback mode and counts, the kernel binary cache).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from foo_cl import _C, _utils
from foo_cl._utils import DeviceLike, _checked_index

__all__ = [
    "Event",
    "Stream",
    "clear_kernel_cache",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "fallback_counts",
    "get_amp_supported_dtype",
    "get_autocast_dtype",
    "get_device_name",
    "get_device_properties",
    "get_fallback_mode",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "is_autocast_enabled",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "kernel_cache_dir",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_snapshot",
    "memory_stats",
    "memory_summary",
    "reset_accumulated_memory_stats",
    "reset_fallback_counts",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_device",
    "set_fallback_mode",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "synchronize",
]


# ---- devices ---------------------------------------------------------------------------------


def is_available() -> bool:
    """True when at least one OpenCL device is usable."""
    return _C._device_count() > 0


def device_count() -> int:
    """Number of foo devices (OpenCL devices after the FOO_CL_PLATFORM/FOO_CL_DEVICE_TYPE filters)."""
    return _C._device_count()


def init() -> None:
    """Initialises foo-cl; raises a RuntimeError explaining how to get a device when there is none."""
    _C._check_device(_C._current_device())


def is_initialized() -> bool:
    """True once foo-cl opened the OpenCL devices (on the first device query or use)."""
    return _C._is_initialized()


def _is_in_bad_fork() -> bool:
    """True in a process forked after foo was initialised, where foo cannot be used."""
    return _C._is_in_bad_fork()


def current_device() -> int:
    """Index of the current foo device of this thread."""
    return _C._current_device()


def set_device(device: DeviceLike) -> None:
    """Sets the current foo device of this thread."""
    _C._set_device(_utils._get_device_index(device, optional=True))


class device:
    """Context manager that makes ``device`` the current foo device, restoring the previous one on exit."""

    def __init__(self, device: DeviceLike) -> None:
        self.idx = -1 if device is None else _utils._get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx == -1:
            return
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)

    def __exit__(self, *args: object) -> None:
        if self.idx != -1 and self.prev_idx != self.idx:
            set_device(self.prev_idx)


class device_of(device):
    """Context manager that makes the device of tensor ``obj`` current (no-op for CPU tensors)."""

    def __init__(self, obj: torch.Tensor) -> None:
        super().__init__(obj.get_device() if obj.device.type == "foo" else None)


def synchronize(device: DeviceLike = None) -> None:
    """Waits for all work queued on every stream of a foo device (default: current)."""
    _C._synchronize(_checked_index(device))


@dataclass(frozen=True)
class _DeviceProperties:
    name: str
    vendor: str
    driver_version: str
    opencl_version: str
    opencl_c_version: str
    platform_name: str
    platform_version: str
    device_type: str
    total_memory: int
    max_alloc_size: int
    local_memory: int
    multi_processor_count: int
    max_work_group_size: int
    max_parameter_size: int
    constant_buffer_size: int
    float_vector_width: int
    has_fp16: bool
    has_fp64: bool
    has_fma: bool  # float32 fused multiply-add
    has_denormals: bool  # float32 denormals kept rather than flushed to zero
    has_int64_atomics: bool
    loop_iteration_limit: int  # iterations a work-item runs before the driver ends its loops; 0: no limit
    times_commands: bool  # commands have device start and end times (event timing, profiler device times)
    extensions: str


def get_device_properties(device: DeviceLike = None) -> _DeviceProperties:
    """Name, vendor, driver and OpenCL versions, memory, compute units, work-group and argument limits,
    float vector width, fp16/fp64/fused multiply-add/denormal/64-bit atomics support, the driver's
    loop-iteration limit (0 for none), whether it times commands, and the extension string."""
    return _DeviceProperties(**_C._device_properties(_checked_index(device)))


def get_device_name(device: DeviceLike = None) -> str:
    """The OpenCL device name of a foo device."""
    return get_device_properties(device).name


# ---- streams and events --------------------------------------------------------------------------


def _torch_device(device: DeviceLike) -> torch.device:
    return torch.device("foo", _checked_index(device))


# NOTE: Stream and Event return plain torch.Stream/torch.Event: PyTorch's C++ methods (elapsed_time,
# wait_stream, ...) reject subclasses of them.
def Stream(device: DeviceLike = None, priority: int = 0) -> torch.Stream:
    """A new stream (an in-order OpenCL command queue) on a foo device."""
    return torch.Stream(device=_torch_device(device), priority=priority)


def Event(enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> torch.Event:
    """A new event on the current foo device: record, wait, query, synchronize, elapsed_time."""
    return torch.Event(
        device=_torch_device(None), enable_timing=enable_timing, blocking=blocking, interprocess=interprocess
    )


def current_stream(device: DeviceLike = None) -> torch.Stream:
    """The current stream of a foo device for this thread."""
    return torch.accelerator.current_stream(_torch_device(device))


def default_stream(device: DeviceLike = None) -> torch.Stream:
    """The default (id 0) stream of a foo device."""
    d = _torch_device(device)
    return torch.Stream(stream_id=0, device_index=d.index, device_type=current_stream(d).device_type)


def set_stream(stream: torch.Stream) -> None:
    """Makes ``stream`` the current stream of its device."""
    torch.accelerator.set_stream(stream)


@contextlib.contextmanager
def stream(stream: torch.Stream | None) -> Iterator[None]:
    """Context manager that makes ``stream`` current (and its device current), restoring both on exit."""
    if stream is None:
        yield
        return
    # As torch.cuda.StreamContext: set_stream also switches the current device to the stream's.
    source_previous = current_stream()
    target_previous = current_stream(stream.device) if stream.device.index != current_device() else None
    set_stream(stream)
    try:
        yield
    finally:
        if target_previous is not None:
            set_stream(target_previous)
        set_stream(source_previous)


# ---- memory -----------------------------------------------------------------------------------


def memory_stats(device: DeviceLike = None) -> OrderedDict[str, Any]:
    """The caching allocator's statistics, in torch.cuda.memory_stats' format."""
    return torch.accelerator.memory_stats(_checked_index(device))


def memory_allocated(device: DeviceLike = None) -> int:
    """Bytes occupied by tensors on a foo device."""
    return torch.accelerator.memory_allocated(_checked_index(device))


def max_memory_allocated(device: DeviceLike = None) -> int:
    """Peak of memory_allocated since start or the last reset_peak_memory_stats."""
    return torch.accelerator.max_memory_allocated(_checked_index(device))


def memory_reserved(device: DeviceLike = None) -> int:
    """Bytes held by the caching allocator (allocated plus cached) on a foo device."""
    return torch.accelerator.memory_reserved(_checked_index(device))


def max_memory_reserved(device: DeviceLike = None) -> int:
    """Peak of memory_reserved since start or the last reset_peak_memory_stats."""
    return torch.accelerator.max_memory_reserved(_checked_index(device))


def reset_peak_memory_stats(device: DeviceLike = None) -> None:
    """Resets the peaks tracked by memory_stats."""
    torch.accelerator.reset_peak_memory_stats(_checked_index(device))


def reset_accumulated_memory_stats(device: DeviceLike = None) -> None:
    """Resets the cumulative counters (allocated/freed totals, retries, OOMs) of memory_stats."""
    torch.accelerator.reset_accumulated_memory_stats(_checked_index(device))


def empty_cache() -> None:
    """Releases every cached, unused OpenCL buffer of every foo device."""
    torch.accelerator.empty_cache()


_SUMMARY_ROWS = [
    ("Allocated memory", "allocated_bytes", True),
    ("Active memory", "active_bytes", True),
    ("Requested memory", "requested_bytes", True),
    ("Reserved memory", "reserved_bytes", True),
    ("Non-releasable memory", "inactive_split_bytes", True),
    ("Allocations", "allocation", False),
    ("Active allocs", "active", False),
    ("Reserved segments", "segment", False),
    ("Non-releasable allocs", "inactive_split", False),
]


def _format_count(value: float, is_bytes: bool) -> str:
    if not is_bytes:
        return str(value)
    if abs(value) < 1024:
        return f"{value} B"
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.2f} {unit}"
    raise AssertionError("unreachable")


def memory_summary(device: DeviceLike = None, abbreviated: bool = False) -> str:
    """A table of the caching allocator's statistics (current, peak, allocated and freed totals), as
    torch.cuda.memory_summary prints; per pool (large and small blocks) unless `abbreviated`."""
    index = _checked_index(device)
    stats = memory_stats(index)
    pools = ["all"] if abbreviated else ["all", "large_pool", "small_pool"]
    width = 92
    lines = [
        "=" * width,
        f" foo-cl memory summary, device foo:{index} ({get_device_name(index)})",
        "-" * width,
        f"{'Metric':<34}{'Cur Usage':>14}{'Peak Usage':>14}{'Tot Alloc':>15}{'Tot Freed':>15}",
        "-" * width,
    ]
    for title, key, is_bytes in _SUMMARY_ROWS:
        for pool in pools:
            label = title if pool == "all" else f"  from {pool.replace('_', ' ')}"
            values = [stats.get(f"{key}.{pool}.{column}", 0) for column in ("current", "peak", "allocated", "freed")]
            cells = [_format_count(v, is_bytes) for v in values]
            lines.append(f"{label:<34}{cells[0]:>14}{cells[1]:>14}{cells[2]:>15}{cells[3]:>15}")
        lines.append("-" * width)
    lines.append(
        f"{'Allocation retries':<34}{stats.get('num_alloc_retries', 0):>14}   "
        f"{'Out-of-memory errors':<25}{stats.get('num_ooms', 0):>14}"
    )
    lines.append("=" * width)
    return "\n".join(lines) + "\n"


def memory_snapshot() -> list[dict[str, Any]]:
    """The caching allocator's segments on every foo device, as torch.cuda.memory_snapshot lists them:
    each OpenCL buffer held (device, address, total_size, allocated_size, active_size, requested_size,
    stream, segment_type "small" or "large") with its blocks in address order (address, size,
    requested_size, state "active_allocated", "active_pending_free" or "inactive"). Addresses are
    foo's device addresses (data_ptr() values); no stack frames are recorded."""
    return [segment for index in range(device_count()) for segment in _C._memory_snapshot(index)]


def mem_get_info(device: DeviceLike = None) -> tuple[int, int]:
    """(free, total) bytes; OpenCL reports no free memory, so free is total minus what foo-cl reserved."""
    return torch.accelerator.get_memory_info(_checked_index(device))


# ---- random numbers ---------------------------------------------------------------------------
# Each device has a default Philox generator; its state is (seed, offset) as a 16-byte uint8 tensor.


def __getattr__(name: str) -> Any:
    if name == "default_generators":
        return tuple(_C._default_generator(i) for i in range(device_count()))
    raise AttributeError(f"module 'torch.foo' has no attribute '{name}'")


def _default_generator(device: DeviceLike) -> torch.Generator:
    return _C._default_generator(_checked_index(device))


def get_rng_state(device: DeviceLike = "foo") -> torch.Tensor:
    """The random number generator state of a foo device (the current one by default), as a uint8 tensor."""
    return _default_generator(device).get_state()


def get_rng_state_all() -> list[torch.Tensor]:
    """The random number generator states of every foo device."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: torch.Tensor, device: DeviceLike = "foo") -> None:
    """Sets the random number generator state of a foo device (the current one by default)."""
    _default_generator(device).set_state(new_state.clone(memory_format=torch.contiguous_format))


def set_rng_state_all(new_states: Iterable[torch.Tensor]) -> None:
    """Sets the random number generator state of every foo device, one state per device."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed: int) -> None:
    """Seeds the random number generator of the current foo device."""
    _default_generator(None).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seeds the random number generators of every foo device (torch.manual_seed calls this)."""
    _C._manual_seed_all(int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def seed() -> None:
    """Seeds the current foo device's generator with a non-deterministic random number."""
    _default_generator(None).seed()


def seed_all() -> None:
    """Seeds every foo device's generator with one non-deterministic random number."""
    manual_seed_all(torch.Generator().seed())


def initial_seed() -> int:
    """The seed of the current foo device's generator."""
    return _default_generator(None).initial_seed()


# ---- automatic mixed precision -----------------------------------------------------------------


def get_amp_supported_dtype() -> list[torch.dtype]:
    """The dtypes torch.autocast("foo") can compute in: float16 and bfloat16 (computed in float32)."""
    return [torch.float16, torch.bfloat16]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """True: foo stores bfloat16 and computes it in float32 on every device."""
    return True


def is_autocast_enabled() -> bool:
    """True inside torch.autocast("foo")."""
    return torch.is_autocast_enabled("foo")


def set_autocast_enabled(enabled: bool) -> None:
    """Turns autocast for foo on or off (torch.autocast("foo") does this for a block)."""
    torch.set_autocast_enabled("foo", enabled)


def get_autocast_dtype() -> torch.dtype:
    """The lower-precision dtype autocast uses on foo (float16 unless set)."""
    return torch.get_autocast_dtype("foo")


def set_autocast_dtype(dtype: torch.dtype) -> None:
    """Sets the lower-precision dtype autocast uses on foo."""
    torch.set_autocast_dtype("foo", dtype)


# ---- foo-cl's own controls --------------------------------------------------------------------


def fallback_counts() -> dict[str, int]:
    """How often each operator without a foo kernel ran on the CPU, e.g. {"aten::mm": 3}."""
    return dict(_C._fallback_counts())


def reset_fallback_counts() -> None:
    """Clears fallback_counts()."""
    _C._reset_fallback_counts()


def get_fallback_mode() -> str:
    """The CPU-fallback mode: "warn" (default), "silent" or "error" (initially FOO_CL_FALLBACK)."""
    return _C._fallback_mode()


def set_fallback_mode(mode: str) -> None:
    """Sets the CPU-fallback mode: "warn" (one warning per operator), "silent", or "error"."""
    _C._set_fallback_mode(mode)


def kernel_cache_dir() -> str:
    """The folder of compiled kernel binaries (FOO_CL_CACHE_DIR, else ~/.cache/foo_cl).

    PoCL's programs are not written there: PoCL caches them itself (POCL_CACHE_DIR).
    """
    return _C._kernel_cache_dir()


def clear_kernel_cache() -> None:
    """Deletes every compiled kernel binary in kernel_cache_dir()."""
    _C._clear_kernel_cache()
