"""``python -m foo_cl``: what a bug report needs. Versions; every OpenCL platform and device with the
capabilities foo-cl reads; which devices are foo:N and what foo chose for each; the kernel cache; a
short self-test against the CPU. Exits non-zero when there is no foo device or the self-test fails.
"""

import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

import torch

import foo_cl
from foo_cl import _C, tune

ENVIRONMENT = [
    "FOO_CL_PLATFORM",
    "FOO_CL_DEVICE_TYPE",
    "FOO_CL_DEVICE_CLASS",
    "FOO_CL_MAX_PARAMETER_SIZE",
    "FOO_CL_FALLBACK",
    "FOO_CL_CACHE_DIR",
    "FOO_CL_CACHE_DISABLE",
    "FOO_CL_KERNEL_DIR",
    "FOO_CL_TUNE",
    "FOO_CL_TUNE_BUDGET_MS",
    "FOO_CL_TUNE_DIR",
    "POCL_DEVICES",
    "RUSTICL_ENABLE",
    "OCL_ICD_VENDORS",
]


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _capabilities(d: dict) -> str:
    yes_no = {True: "yes", False: "no"}
    return (
        f"{d['opencl_version']}, {d['opencl_c_version']}, driver {d['driver_version']}\n"
        f"      {d['multi_processor_count']} compute units, {_bytes(d['total_memory'])} memory "
        f"(one allocation at most {_bytes(d['max_alloc_size'])}), local memory {_bytes(d['local_memory'])}, "
        f"constant buffer {_bytes(d['constant_buffer_size'])}\n"
        f"      work-group size {d['max_work_group_size']}, kernel arguments {d['max_parameter_size']} bytes, "
        f"float vector width {d['float_vector_width']}, fp16 {yes_no[d['has_fp16']]}, "
        f"fp64 {yes_no[d['has_fp64']]}, float32 fma {yes_no[d['has_fma']]}, denormals {yes_no[d['has_denormals']]}, "
        f"64-bit atomics {yes_no[d['has_int64_atomics']]}"
    )


def _foo_indices(inventory: list[dict], used: list[dict]) -> list[int | None]:
    """For each inventory device, the foo index of the used device that is it (None if not used)."""

    def identity(d: dict) -> tuple:
        return d["platform_name"], d["name"], d["driver_version"], d["device_type"]

    remaining = list(range(len(used)))
    indices = []
    for device in inventory:
        match = next((i for i in remaining if identity(used[i]) == identity(device)), None)
        if match is not None:
            remaining.remove(match)
        indices.append(match)
    return indices


def _cache_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.glob("**/*") if p.is_file()] if path.is_dir() else []
    return len(files), sum(p.stat().st_size for p in files)


SELF_TESTS: dict[str, Callable[[torch.device], torch.Tensor]] = {
    "add": lambda d: torch.arange(1000.0, device=d) + torch.ones(1000, device=d),
    "matmul": lambda d: torch.ones(64, 48, device=d) @ torch.arange(48 * 32.0, device=d).reshape(48, 32) / 1000,
    "sum": lambda d: torch.arange(100_000.0, device=d).reshape(100, 1000).sum(0),
    "softmax": lambda d: torch.softmax(torch.arange(300.0, device=d).reshape(3, 100) / 50, -1),
    "float16 exp": lambda d: torch.linspace(-4, 4, 999, device=d).half().exp(),
    "index_put accumulate": lambda d: torch.zeros(10, device=d).index_put_(
        (torch.arange(100, device=d) % 10,), torch.ones(100, device=d), accumulate=True
    ),
}


def self_test(index: int) -> list[str]:
    """Runs SELF_TESTS on foo:index and on the CPU; returns a line per test."""
    lines = []
    for name, fn in SELF_TESTS.items():
        try:
            torch.testing.assert_close(fn(torch.device("foo", index)).cpu(), fn(torch.device("cpu")))
            lines.append(f"      {name}: ok")
        except Exception as e:  # noqa: BLE001 (every test runs; each failure is reported)
            lines.append(f"      {name}: FAILED ({type(e).__name__}: {str(e).splitlines()[0]})")
    return lines


def main() -> int:
    print(f"foo-cl {foo_cl.__version__}, torch {torch.__version__}, Python {platform.python_version()}")
    print(f"{platform.platform()}, {platform.processor() or platform.machine()}")
    print("\nEnvironment:")
    for name in ENVIRONMENT:
        print(f"  {name}={os.environ[name]}" if name in os.environ else f"  {name} unset")

    count = torch.foo.device_count()
    used = [_C._device_properties(i) for i in range(count)]
    inventory = _C._opencl_inventory()
    print("\nOpenCL devices (all platforms):" if inventory else "\nNo OpenCL platform is installed.")
    for device, index in zip(inventory, _foo_indices(inventory, used)):
        role = f"foo:{index}" if index is not None else "not used (filtered out by the variables above)"
        print(f"  [{device['platform_name']}] {device['name']} ({device['device_type']}): {role}")
        print(f"      {_capabilities(device)}")

    print(f"\nfoo devices: {count} (GPUs first, then in platform order)")
    failed = count == 0
    for index in range(count):
        choices = _C._device_choices(index)
        print(f"  foo:{index}: {torch.foo.get_device_name(index)}")
        print(f"    variants: {choices['device_class']}")
        limit = used[index]["loop_iteration_limit"]
        if limit:
            print(
                f"    loops: the driver ends a work-item's loops after {limit} iterations; longer loops give wrong results"
            )
        if not used[index]["times_commands"]:
            print(
                "    timing: the driver gives commands no start and end times (no event timing, no profiler device times)"
            )
        print(f"    GEMM: {choices['gemm']}")
        print(f"    tuning: {len(tune.choices(index))} shape classes chosen, in {tune.cache_path(index)}")
        results = self_test(index)
        print("    self-test against the CPU:")
        print("\n".join(results))
        failed |= any("FAILED" in line for line in results)

    cache = Path(torch.foo.kernel_cache_dir())
    files, size = _cache_size(cache)
    print(f"\nKernel cache: {cache} ({files} files, {_bytes(size)})")
    print(f"CLBlast: {_C._clblast_status()}")
    if count == 0:
        print("\nNo foo device: install an OpenCL driver (`apt-get install pocl-opencl-icd` runs foo on the CPU).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
