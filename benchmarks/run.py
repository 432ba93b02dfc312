"""Command line of the foo-cl benchmarks: ``python -m benchmarks.run [-k PATTERN] [--json FILE]
[--plot FILE.png] [--repeat N]``. Importing a benchmark module registers its rows; this file selects
them, runs each on foo and on the CPU, and prints the setup (foo's device, the CPU's model) and the
comparison table (progress goes to stderr).
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

import foo_cl  # noqa: F401  (registers torch.foo)
from benchmarks import elementwise, harness, linalg, memory, nn, random_numbers, torch_compile  # noqa: F401  (register their rows; import new modules here)
from benchmarks.plot import plot_ratios


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Times each benchmark on foo and on the CPU and prints the comparison table.",
    )
    parser.add_argument(
        "-k",
        dest="patterns",
        action="append",
        metavar="PATTERN",
        help="run only benchmarks whose name contains PATTERN or matches it as a regex "
        "(case-insensitive; repeat the option to run the union)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the rows to FILE as a JSON list")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the foo/CPU ratios as a bar chart (matplotlib)")
    parser.add_argument(
        "--repeat",
        type=positive_int,
        metavar="N",
        help="timed repetitions per row, median reported (default: per row, 20 for fast ops, fewer for slow ones)",
    )
    return parser.parse_args(argv)


def cpu_model() -> str:
    """The host CPU's model name (what the CPU column ran on, and, with PoCL, foo too)."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def describe_setup() -> str:
    return (
        f"foo: {torch.foo.get_device_name()} | cpu: {cpu_model()}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads | values are medians"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not torch.foo.is_available():
        print(
            "error: no foo device (torch.foo.is_available() is False): foo-cl found no usable OpenCL "
            "device, so there is nothing to benchmark. Check the OpenCL driver and the "
            "FOO_CL_PLATFORM / FOO_CL_DEVICE_TYPE filters.",
            file=sys.stderr,
        )
        return 1
    selected = harness.select(harness.REGISTRY, args.patterns)
    if not selected:
        names = ", ".join(b.name for b in harness.REGISTRY)
        print(f"error: no benchmark matches {args.patterns}; the benchmarks are: {names}", file=sys.stderr)
        return 1

    setup = describe_setup()
    print(setup)
    rows = harness.run_all(selected, args.repeat)
    print(harness.format_table(rows))
    if args.json:
        harness.write_json(rows, args.json)
    if args.plot:
        plot_ratios(rows, args.plot, setup)
    return 1 if any(row.error for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
