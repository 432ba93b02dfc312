"""The autotuner's Python side: ``python -m foo_cl.tune`` tunes ahead of time, and the functions
below read and clear what it chose.

foo's launchers ask the tuner (``csrc/tune/``) for each kernel's parameters per device and shape
class. At a class's first use it times the candidates on the device in use, within
``FOO_CL_TUNE_BUDGET_MS`` (2000; the builds of their programs not counted), and keeps the fastest in
a text file per device and driver beside the kernel cache. ``FOO_CL_TUNE`` is ``on`` (the default), ``off`` (defaults, nothing timed) or
``exhaustive`` (every candidate of a new class is timed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import NamedTuple

import torch

from foo_cl import _C
from foo_cl._utils import DeviceLike, _checked_index

# Products tuned ahead of time: square sizes, and the skinny shapes of linear layers and attention.
GEMM_SHAPES = [(n, n, n) for n in (256, 512, 1024, 2048, 4096)] + [
    (4096, 256, 256),
    (256, 4096, 256),
    (256, 256, 4096),
    (128, 1024, 4096),
    (8192, 64, 64),
    (4096, 1024, 4096),
    (4096, 4096, 1024),
]


class Choice(NamedTuple):
    """One tuned choice: the candidate a kernel family uses for a shape class, and the best time (in
    microseconds) of each candidate timed, fastest first."""

    family: str
    shape_class: str
    candidate: str
    timings: list[tuple[float, str]]


def cache_path(device: DeviceLike = None) -> str:
    """The file that keeps a device's choices (one line per kernel family and shape class)."""
    return _C._tune_cache_path(_checked_index(device))


def choices(device: DeviceLike = None) -> list[Choice]:
    """Every choice known for a device: made in this process or read from its file."""
    out = []
    for family, shape_class, candidate, timings in _C._tune_entries(_checked_index(device)):
        timed = []
        for item in filter(None, timings.split("; ")):
            microseconds, timed_candidate = item.split(" ", 1)
            timed.append((float(microseconds), timed_candidate))
        out.append(Choice(family, shape_class, candidate, timed))
    return out


def clear(device: DeviceLike = None) -> None:
    """Forgets a device's choices, in this process and on disk: the next use of each class tunes again."""
    _C._tune_clear(_checked_index(device))


def tune_gemm(device: int, shapes: Sequence[tuple[int, int, int]], dtype: torch.dtype = torch.float32) -> None:
    """Runs each M x K @ K x N product once with B contiguous along N and once along K (x @ W.t()),
    which tunes both layouts' shape classes on ``device``."""
    with torch.foo.device(device):
        for m, k, n in shapes:
            a = torch.randn(m, k, device="foo", dtype=dtype)
            a @ torch.randn(k, n, device="foo", dtype=dtype)
            a @ torch.randn(n, k, device="foo", dtype=dtype).t()
        torch.foo.synchronize()


def format_choices(device: int) -> str:
    lines = [f"foo:{device} ({torch.foo.get_device_name(device)}), {cache_path(device)}"]
    for c in choices(device):
        runner_up = f", next {c.timings[1][0] / c.timings[0][0]:.2f}x slower" if len(c.timings) > 1 else ""
        best = f"{c.timings[0][0]:.0f} us" if c.timings else "untimed"
        lines.append(f"  {c.family:6s} {c.shape_class:36s} {c.candidate}  ({best}, {len(c.timings)} timed{runner_up})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m foo_cl.tune",
        description="Tunes foo's kernels ahead of time for common shapes on every foo device "
        "(or one), and prints each device's choices.",
    )
    parser.add_argument("--device", type=int, help="tune foo:DEVICE only")
    parser.add_argument("--exhaustive", action="store_true", help="time every candidate (FOO_CL_TUNE=exhaustive)")
    parser.add_argument("--retune", action="store_true", help="forget the cached choices first")
    parser.add_argument("--show", action="store_true", help="only print the cached choices")
    args = parser.parse_args(argv)
    if not torch.foo.is_available():
        print("error: no foo device (torch.foo.is_available() is False)", file=sys.stderr)
        return 1
    if args.exhaustive:
        os.environ["FOO_CL_TUNE"] = "exhaustive"
    elif _C._tune_mode() == "off":
        print("error: FOO_CL_TUNE=off: unset it to tune", file=sys.stderr)
        return 1
    devices = [args.device] if args.device is not None else list(range(torch.foo.device_count()))
    for device in devices:
        if not args.show:
            if args.retune:
                clear(device)
            start = time.perf_counter()
            tune_gemm(device, GEMM_SHAPES)
            print(f"foo:{device}: tuned in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        print(format_choices(device))
    return 0


if __name__ == "__main__":
    sys.exit(main())
