"""Shared benchmark machinery: the registry of rows, timing (warm-up, foo synchronisation, medians
of calls interleaved in rounds), name filtering, and the table and JSON output. Benchmark modules
(memory.py, ...) only declare rows, with the `benchmark` decorator or with `register`; run.py
selects, runs and prints them.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import torch

Op = Callable[[], object]  # one timed call of the operation
Setup = Callable[[str], Op]  # device ("foo" or "cpu") -> the operation on tensors of that device
Measure = Callable[[int], tuple[float, float]]  # repetitions -> (foo value, cpu value)

WARMUP_CALLS = 2  # untimed calls first, so kernel compilation and first allocations are not timed
ROUNDS = 5  # median_seconds: a row's timed calls go in this many rounds of each op in turn
SETTLE_SECONDS = 0.005  # median_seconds: idle time before each op's turn

# Throughput units, higher is better: value = work / seconds * scale (work in bytes, elements, ...).
RATE_UNITS = {"GB/s": 1e-9, "GFLOP/s": 1e-9, "Gsamples/s": 1e-9}
# Time units, lower is better: value = seconds / work * scale (work = calls of the op per timed op).
TIME_UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6}


@dataclass(frozen=True)
class Benchmark:
    """One table row: `measure(repeat)` returns the (foo, cpu) medians in `unit`; `note` is printed
    under the table when the row means something other than "the op on foo vs on the CPU"."""

    name: str
    size: str
    unit: str
    measure: Measure
    repeat: int = 20  # default number of timed repetitions; --repeat overrides it
    note: str = ""

    def __post_init__(self) -> None:
        if self.unit not in RATE_UNITS and self.unit not in TIME_UNITS:
            raise ValueError(f"benchmark {self.name!r}: unknown unit {self.unit!r}")


@dataclass(frozen=True)
class Row:
    """A measured row; the values are None and `error` says why when the benchmark raised."""

    name: str
    size: str
    unit: str
    foo: float | None
    cpu: float | None
    ratio: float | None
    error: str | None = None
    note: str = ""


REGISTRY: list[Benchmark] = []


# ---- declaring rows ----------------------------------------------------------------------------


def register(bench: Benchmark) -> Benchmark:
    """Adds a row to the table, in registration order; names must be unique (they are what -k sees)."""
    if any(b.name == bench.name for b in REGISTRY):
        raise ValueError(f"benchmark {bench.name!r} is registered twice")
    REGISTRY.append(bench)
    return bench


def benchmark(name: str, *, size: str, unit: str, work: float, repeat: int = 20) -> Callable[[Setup], Setup]:
    """Registers the decorated setup function as a row timed on foo and on the CPU.

    setup(device) allocates its tensors on `device` and returns the op to time. `work` turns the
    median time of one op into `unit`: bytes for GB/s, or the number of calls the op makes for a
    time unit (the row then reports the time per call).
    """

    def decorate(setup: Setup) -> Setup:
        def measure(repeat: int) -> tuple[float, float]:
            foo, cpu = median_seconds([(setup("foo"), "foo"), (setup("cpu"), "cpu")], repeat)
            return to_unit(foo, work, unit), to_unit(cpu, work, unit)

        register(Benchmark(name, size, unit, measure, repeat))
        return setup

    return decorate


# ---- timing -------------------------------------------------------------------------------------


def synchronize(device: str) -> None:
    """Waits for the queued foo work; CPU ops are already done when they return."""
    if device == "foo":
        torch.foo.synchronize()


def median_seconds(ops: Sequence[tuple[Op, str]], repeat: int) -> list[float]:
    """The median wall time of each (op, device) over `repeat` timed calls, each ending with its
    device's synchronise. NOTE: the calls go in ROUNDS rounds of each op in turn, so that a machine
    whose speed drifts within a row (other tenants of the host, clock changes) slows both sides of
    the comparison alike; each turn starts after SETTLE_SECONDS idle, so that threads the other op
    left spinning (PyTorch's OpenMP pool, the OpenCL driver's workers) do not take its cores, and
    with an untimed call, which wakes its own threads."""
    for op, device in ops:
        for _ in range(WARMUP_CALLS):
            op()
        synchronize(device)
    times: list[list[float]] = [[] for _ in ops]
    rounds = min(ROUNDS, repeat)
    for round_index in range(rounds):
        calls = repeat // rounds + (round_index < repeat % rounds)
        for (op, device), op_times in zip(ops, times):
            time.sleep(SETTLE_SECONDS)
            op()
            synchronize(device)
            for _ in range(calls):
                start = time.perf_counter()
                op()
                synchronize(device)
                op_times.append(time.perf_counter() - start)
    return [statistics.median(op_times) for op_times in times]


def to_unit(seconds: float, work: float, unit: str) -> float:
    if unit in RATE_UNITS:
        return work / seconds * RATE_UNITS[unit]
    return seconds / work * TIME_UNITS[unit]


def ratio(foo: float, cpu: float, unit: str) -> float:
    """How many times better foo is than the CPU (>1: foo faster): foo/cpu for rates, cpu/foo for times."""
    return cpu / foo if unit in TIME_UNITS else foo / cpu


# ---- selecting and running ---------------------------------------------------------------------


def matches(name: str, pattern: str) -> bool:
    """Case-insensitive substring or regex match (a plain substring such as "alloc+free" also works)."""
    if pattern.lower() in name.lower():
        return True
    try:
        return re.search(pattern, name, re.IGNORECASE) is not None
    except re.error:
        return False


def select(benchmarks: Iterable[Benchmark], patterns: Sequence[str] | None) -> list[Benchmark]:
    """The benchmarks whose name matches any of the patterns (all of them without patterns)."""
    return [b for b in benchmarks if not patterns or any(matches(b.name, p) for p in patterns)]


def run_one(bench: Benchmark, repeat: int) -> Row:
    """Measures one row; a failure is printed with its traceback and kept as an error row."""
    try:
        foo, cpu = bench.measure(repeat)
    except Exception as error:  # noqa: BLE001 - one failing row must not hide the others
        traceback.print_exc()
        message = f"{type(error).__name__}: {error}"
        return Row(bench.name, bench.size, bench.unit, None, None, None, error=message, note=bench.note)
    return Row(bench.name, bench.size, bench.unit, foo, cpu, ratio(foo, cpu, bench.unit), note=bench.note)


def run_all(benchmarks: Sequence[Benchmark], repeat: int | None = None) -> list[Row]:
    """Runs the rows in order with a progress line on stderr; `repeat` overrides each row's default."""
    rows = []
    for index, bench in enumerate(benchmarks, 1):
        print(f"[{index}/{len(benchmarks)}] {bench.name} {bench.size} ...", file=sys.stderr, flush=True)
        rows.append(run_one(bench, repeat or bench.repeat))
    return rows


# ---- output --------------------------------------------------------------------------------------

HEADER = ("benchmark", "size", "foo", "cpu", "foo/cpu")
JSON_KEYS = ("name", "size", "unit", "foo", "cpu", "ratio")
FOOTNOTE = "foo/cpu > 1 means foo is faster: foo/cpu for rate rows (GB/s, GFLOP/s), cpu/foo for time rows (us, ms)."


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "failed"
    digits = 0 if abs(value) >= 1000 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f} {unit}"


def format_ratio(value: float | None) -> str:
    return "failed" if value is None else f"{value:.2f}x"


def format_table(rows: Sequence[Row]) -> str:
    """A plain-text table: text columns left-aligned, measured columns right-aligned."""
    cells = [HEADER] + [
        (r.name, r.size, format_value(r.foo, r.unit), format_value(r.cpu, r.unit), format_ratio(r.ratio)) for r in rows
    ]
    widths = [max(len(row[col]) for row in cells) for col in range(len(HEADER))]

    def line(row: Sequence[str]) -> str:
        text = [cell.ljust(width) for cell, width in zip(row[:2], widths)]
        numbers = [cell.rjust(width) for cell, width in zip(row[2:], widths[2:])]
        return "  ".join(text + numbers)

    rule = "  ".join("-" * width for width in widths)
    notes = [f"{row.name}: {row.note}" for row in rows if row.note]
    return "\n".join([line(cells[0]), rule, *(line(row) for row in cells[1:]), rule, FOOTNOTE, *notes])


def json_record(row: Row) -> dict[str, object]:
    record: dict[str, object] = {key: getattr(row, key) for key in JSON_KEYS}
    if row.error:
        record["error"] = row.error
    return record


def write_json(rows: Sequence[Row], path: str) -> None:
    """Writes the rows as a JSON list of {name, size, unit, foo, cpu, ratio} (plus error when failed)."""
    with open(path, "w") as file:
        json.dump([json_record(row) for row in rows], file, indent=2)
        file.write("\n")
