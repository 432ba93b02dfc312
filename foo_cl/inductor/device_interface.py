"""Dynamo's and Inductor's view of foo devices: torch.foo behind the DeviceInterface API."""

from __future__ import annotations

from typing import Any

import torch
from torch._dynamo.device_interface import DeviceInterface


class FooInterface(DeviceInterface):
    device = torch.foo.device  # type: ignore[assignment]
    Event = torch.Event  # type: ignore[assignment]
    Stream = torch.Stream  # type: ignore[assignment]

    class Worker:
        """What compile workers (which may not have touched the device) ask."""

        @staticmethod
        def set_device(device: int) -> None:
            torch.foo.set_device(device)

        @staticmethod
        def current_device() -> int:
            return torch.foo.current_device()

        @staticmethod
        def get_device_properties(device: torch.types.Device = None) -> Any:
            return torch.foo.get_device_properties(device)

    @staticmethod
    def current_device() -> int:
        return torch.foo.current_device()

    @staticmethod
    def set_device(device: torch.types.Device) -> None:
        torch.foo.set_device(device)

    @staticmethod
    def maybe_exchange_device(device: int) -> int:
        previous = torch.foo.current_device()
        if device != previous:
            torch.foo.set_device(device)
        return previous

    @staticmethod
    def exchange_device(device: int) -> int:
        return FooInterface.maybe_exchange_device(device)

    @staticmethod
    def device_count() -> int:
        return torch.foo.device_count()

    @staticmethod
    def is_available() -> bool:
        return torch.foo.is_available()

    @staticmethod
    def stream(stream: torch.Stream) -> Any:
        return torch.foo.stream(stream)

    @staticmethod
    def current_stream() -> torch.Stream:
        return torch.foo.current_stream()

    @staticmethod
    def set_stream(stream: torch.Stream) -> None:
        torch.foo.set_stream(stream)

    @staticmethod
    def _set_stream_by_id(stream_id: int, device_index: int, device_type: int) -> None:
        torch.foo.set_stream(torch.Stream(stream_id=stream_id, device_index=device_index, device_type=device_type))

    @staticmethod
    def get_raw_stream(device_idx: int) -> int:
        # Generated kernels launch on the current stream themselves (foo_cl.inductor.runtime).
        return 0

    @staticmethod
    def synchronize(device: torch.types.Device = None) -> None:
        torch.foo.synchronize(device)

    @classmethod
    def get_device_properties(cls, device: torch.types.Device = None) -> Any:
        return torch.foo.get_device_properties(device)

    @staticmethod
    def get_compute_capability(device: torch.types.Device = None) -> str:
        # Part of Inductor's cache keys: the OpenCL device and driver.
        properties = torch.foo.get_device_properties(device)
        return f"{properties.name} ({properties.driver_version})"

    @staticmethod
    def is_bf16_supported(including_emulation: bool = False) -> bool:
        return True

    @classmethod
    def is_dtype_supported(cls, dtype: torch.dtype, including_emulation: bool = False) -> bool:
        if dtype in (torch.float64, torch.complex128):
            return torch.foo.get_device_properties().has_fp64
        return True

    @staticmethod
    def memory_allocated(device: torch.types.Device = None) -> int:
        return torch.foo.memory_allocated(device)

    @staticmethod
    def is_triton_capable(device: torch.types.Device = None) -> bool:
        return False
