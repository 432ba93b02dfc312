"""Memory rows: host-to-device, device-to-host and device copies (also from and into pinned host
memory against pageable), fill_, the caching allocator's alloc+free, and the cost of building OpenCL
programs (cold compile vs the kernel binary disk cache).
Copy and fill rates count the bytes written once (a 64 MB copy moves 64 MB).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable

import torch

from benchmarks.harness import Benchmark, Op, benchmark, median_seconds, register, to_unit

MB = 1 << 20
FLOAT32_BYTES = 4
COPY_BYTES = 64 * MB
FILL_NUMEL = 16 * MB
ALLOC_NUMEL = MB // FLOAT32_BYTES
ALLOC_CALLS = 1000


# ---- copies and fill -----------------------------------------------------------------------------


def _copy(src_device: str, dst_device: str) -> Op:
    """dst.copy_(src) of COPY_BYTES of float32, both tensors allocated up front."""
    numel = COPY_BYTES // FLOAT32_BYTES
    src = torch.rand(numel).to(src_device)
    dst = torch.empty(numel, device=dst_device)
    return lambda: dst.copy_(src)


@benchmark("h2d copy", size="64 MB", unit="GB/s", work=COPY_BYTES)
def h2d_copy(device: str) -> Op:
    """foo: dst_foo.copy_(src_cpu); cpu: the same copy CPU -> CPU."""
    return _copy("cpu", device)


@benchmark("d2h copy", size="64 MB", unit="GB/s", work=COPY_BYTES)
def d2h_copy(device: str) -> Op:
    """foo: dst_cpu.copy_(src_foo); cpu: the same copy CPU -> CPU."""
    return _copy(device, "cpu")


@benchmark("d2d copy", size="64 MB", unit="GB/s", work=COPY_BYTES)
def d2d_copy(device: str) -> Op:
    """foo: dst_foo.copy_(src_foo); cpu: the same copy CPU -> CPU."""
    return _copy(device, device)


def _host_copy(to_foo: bool, pinned: bool) -> Op:
    """A non_blocking copy of COPY_BYTES between foo and a pinned or pageable host tensor."""
    numel = COPY_BYTES // FLOAT32_BYTES
    host = torch.rand(numel)
    host = host.pin_memory() if pinned else host
    on_foo = torch.empty(numel, device="foo")
    if to_foo:
        return lambda: on_foo.copy_(host, non_blocking=True)
    return lambda: host.copy_(on_foo, non_blocking=True)


def _pinned_against_pageable(to_foo: bool) -> Callable[[int], tuple[float, float]]:
    def measure(repeat: int) -> tuple[float, float]:
        seconds = median_seconds([(_host_copy(to_foo, pinned), "foo") for pinned in (True, False)], repeat)
        return to_unit(seconds[0], COPY_BYTES, "GB/s"), to_unit(seconds[1], COPY_BYTES, "GB/s")

    return measure


for _direction, _to_foo in (("h2d", True), ("d2h", False)):
    register(
        Benchmark(
            f"{_direction} copy pinned vs pageable",
            size="64 MB",
            unit="GB/s",
            measure=_pinned_against_pageable(_to_foo),
            note="foo = non_blocking copy with pinned host memory, cpu = with pageable host memory",
        )
    )


@benchmark("fill_", size="16M float32", unit="GB/s", work=FILL_NUMEL * FLOAT32_BYTES)
def fill(device: str) -> Op:
    x = torch.empty(FILL_NUMEL, device=device)
    return lambda: x.fill_(1.5)


# ---- allocator -----------------------------------------------------------------------------------


@benchmark("alloc+free", size="1 MB", unit="us", work=ALLOC_CALLS)
def alloc_free(device: str) -> Op:
    """torch.empty of 1 MB dropped right away: on foo a round trip through the caching allocator."""

    def alloc_and_free() -> None:
        for _ in range(ALLOC_CALLS):
            x = torch.empty(ALLOC_NUMEL, device=device)
            del x

    return alloc_and_free


# ---- kernel build --------------------------------------------------------------------------------

# Runs in a fresh interpreter: builds the programs that torch.ones (fill) and .to(int32) (copy) need
# and prints every program build of that process as JSON: [[key, options, milliseconds, from_disk]].
_BUILD_SCRIPT = """\
import torch, foo_cl
x = torch.ones(1024, device="foo")
y = x.to(torch.int32)
torch.foo.synchronize()
import json
print(json.dumps(foo_cl._C._program_builds()))
"""


def _program_builds(cache_dir: str) -> list[list]:
    """The program builds of one fresh process using `cache_dir` as foo-cl's kernel binary cache."""
    # PoCL's own cache (where foo-cl leaves PoCL's programs) starts empty in the same folder.
    env = {**os.environ, "FOO_CL_CACHE_DIR": cache_dir, "POCL_CACHE_DIR": os.path.join(cache_dir, "pocl")}
    done = subprocess.run([sys.executable, "-c", _BUILD_SCRIPT], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"kernel build subprocess exited with {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def _cold_and_warm_ms() -> tuple[float, float]:
    """Total build milliseconds of a process with an empty cache and of a second one reusing it."""
    cache_dir = tempfile.mkdtemp(prefix="foo_cl_bench_cache_")
    try:
        cold = _program_builds(cache_dir)
        warm = _program_builds(cache_dir)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    if not cold:
        raise RuntimeError("the kernel build subprocess built no program")
    if any(from_disk for _, _, _, from_disk in cold):
        print("warning: the cold run loaded binaries from an empty cache", file=sys.stderr)
    return sum(ms for _, _, ms, _ in cold), sum(ms for _, _, ms, _ in warm)


def kernel_build(repeat: int) -> tuple[float, float]:
    """Median (warm, cold) build ms over `repeat` cold+warm process pairs, each with a new cache."""
    pairs = [_cold_and_warm_ms() for _ in range(repeat)]
    cold = statistics.median(cold for cold, _ in pairs)
    warm = statistics.median(warm for _, warm in pairs)
    return warm, cold


# This row is not foo against the CPU: the "foo" column is the warm build (from the disk caches:
# foo-cl's binaries, or PoCL's own cache on PoCL) and the "cpu" column the cold build, so the ratio
# cpu/foo of a time row is cold/warm, the speed-up the disk caches give. Each repetition starts two
# interpreters, hence the few repeats.
register(
    Benchmark(
        "kernel build warm vs cold",
        size="ones+to(int32)",
        unit="ms",
        measure=kernel_build,
        repeat=3,
        note="foo = warm build (disk caches), cpu = cold build, foo/cpu = cold/warm speed-up",
    )
)
