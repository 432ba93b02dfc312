"""Device-argument parsing shared by torch.foo and torch.serialization."""

import torch

from foo_cl import _C

DeviceLike = int | str | torch.device | None


def _get_device_index(device: DeviceLike, optional: bool = False) -> int:
    """The index of a foo device given as an int, "foo:N", "foo" or torch.device; None means current."""
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "foo":
            raise ValueError(f"Expected a foo device, but got: {device}")
        device = device.index
    if device is None:
        if not optional:
            raise ValueError("Expected a foo device with a specified index or an integer, but got: None")
        return _C._current_device()
    return int(device)


def _checked_index(device: DeviceLike) -> int | None:
    index = _get_device_index(device, optional=True)
    _C._check_device(index)
    return index
