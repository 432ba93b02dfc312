"""What the Python modules Inductor writes for foo call: generated OpenCL C kernels as callables.

A kernel is built through foo's program cache (in memory, and on disk where the driver does not
cache builds itself) at its first launch, and enqueued on the current stream of its tensors' device
with foo's kernel ABI: a tensor is its buffer and byte offset, an integer a 64-bit value.
"""

from __future__ import annotations

import functools
import hashlib

import torch

from foo_cl import _C

# How a kernel's grid loop goes (codegen's OpenCLKernel.loop): over elements; over reduction rows,
# whose loops take LANES[ROWS] elements a turn; or over reduction columns, one element of each a
# turn (on CPU devices LANES[COLUMNS] columns at a time).
ELEMENTS, ROWS, COLUMNS = "elements", "rows", "columns"
# The lanes (FOO_W) of each kind's values on CPU devices (a row loop's on every device). 16 lanes
# are two float8 vectors, whose chains of math a core runs side by side: one float8 chain of exp,
# tanh and two divisions waited on its own latency, at twice the time (the pointwise-chain
# benchmark's kernel over 16M floats 17 -> 9 ms, pthread-skylake-avx512-AMD EPYC). A column loop's
# lanes are 8 outputs, one vector of a row a turn.
LANES = {ELEMENTS: 16, ROWS: 16, COLUMNS: 8}
# How many blocks of LANES[COLUMNS] columns a column loop's turns take together on CPU devices
# (codegen's _column_loops): a row's 64 consecutive floats, 4 lines, a turn. 4096x1024 sum(0):
# 3.4 ms in blocks alone, 0.3-0.6 ms in groups of 8 (eager foo: 0.4-0.7 ms) (pthread-skylake-avx512-AMD EPYC).
COLUMN_GROUP = 8
# launch_generated_kernel's loop_block for each: how many grid iterations a CPU work-item's loops
# take together (0: an elementwise launch).
_LOOP_BLOCKS = {ELEMENTS: 0, ROWS: 1, COLUMNS: LANES[COLUMNS] * COLUMN_GROUP}


@functools.cache
def _loop_limit(device: int) -> int:
    """How many loop iterations a work-item of `device` runs before its driver ends the loop (0: no limit)."""
    return torch.foo.get_device_properties(device).loop_iteration_limit


class FooKernel:
    """A generated kernel: ``kernel(*tensors, *sizes, xnumel[, r0_numel])``.

    The first ``tensors`` arguments are foo tensors (their data pointers may be views into a
    buffer); the rest are integers. ``xnumel``, the argument at ``grid_arg``, is how many
    iterations the kernel's grid loop takes: one per output element, a reduction's row or column
    being a loop of its own (``loop``: ELEMENTS, ROWS or COLUMNS).
    """

    def __init__(self, name: str, source: str, tensors: int, grid_arg: int, loop: str) -> None:
        self.name = name
        self.source = source
        self.tensors = tensors
        self.grid_arg = grid_arg
        self.loop = loop
        # The program's name in foo's kernel caches, hashed once here rather than at every launch.
        self.key = f"inductor:{name}@{hashlib.blake2b(source.encode(), digest_size=16).hexdigest()}"
        # Whether its last argument is its device's error word (codegen's check_bounds).
        self.reports_errors = "FOO_ERROR_PARAM" in source
        self.loop_block = _LOOP_BLOCKS[loop]

    def __repr__(self) -> str:
        return f"FooKernel({self.name!r})"

    def __call__(self, *args: torch.Tensor | int) -> None:
        tensors = args[: self.tensors]
        device = tensors[0].get_device() if tensors else _C._current_device()
        if self.loop != ELEMENTS and _loop_limit(device):
            length = int(args[self.grid_arg + 1])  # r0_numel
            turns = length // LANES[ROWS] + 1 if self.loop == ROWS else length
            if turns > _loop_limit(device):
                name, line = torch.foo.get_device_name(device), "row" if self.loop == ROWS else "column"
                raise RuntimeError(
                    f"foo-cl: compiled kernel {self.name} loops {turns} times over a reduction {line}, more than the "
                    f"{_loop_limit(device)} iterations foo:{device} ({name}) runs before its driver ends a loop; "
                    "run this reduction eagerly or use another OpenCL driver"
                )
        _C._launch_generated_kernel(
            device,
            self.key,
            self.name,
            self.source,
            [t.data_ptr() for t in tensors],
            [int(a) for a in args[self.tensors :]],
            int(args[self.grid_arg]),
            self.loop_block,
            self.reports_errors,
        )


def scalar_bits(t: torch.Tensor) -> int:
    """A 0-d CPU tensor's value as a generated kernel takes it (codegen's _scalar_from_bits): a float's
    bits (float16 and bfloat16 as float32's), an integer's value."""
    if t.dtype == torch.float64 or t.dtype == torch.uint64:
        return t.view(torch.int64).item()
    if t.is_floating_point():
        return t.float().view(torch.int32).item()
    return int(t.item())
