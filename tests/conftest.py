"""Shared set-up of the foo-cl tests: the environment, dtype and layout tables, exact comparisons, a
fallback-mode switch, running an operator on foo and on the CPU, the two-device marker, and a runner
for scripts that need a fresh process.
"""

import os

# NOTE: read once, when foo_cl/OpenCL first initialise, so they must be set before torch is imported
# (torch itself imports foo_cl through the torch.backends entry point).
os.environ.setdefault("POCL_DEVICES", "pthread pthread")
os.environ.setdefault("FOO_CL_FALLBACK", "silent")

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import NamedTuple, TypeVar  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

import foo_cl  # noqa: E402, F401

FLOAT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
DTYPES = [*FLOAT_DTYPES, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool]

# (src, dst) pairs that need a converting kernel, covering float<->int, half/bfloat16, bool, widening and narrowing.
CONVERTING_PAIRS = [
    (torch.float32, torch.float16),
    (torch.float64, torch.int32),
    (torch.bfloat16, torch.float32),
    (torch.int64, torch.uint8),
    (torch.int8, torch.float64),
    (torch.bool, torch.int16),
]

FOO = torch.device("foo", 0)


def dtype_id(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def pair_id(pair: tuple[torch.dtype, torch.dtype]) -> str:
    return f"{dtype_id(pair[0])}->{dtype_id(pair[1])}"


class Layout(NamedTuple):
    """How to get a tensor of a layout: the shape of a dense base tensor and a view to take of it."""

    base_shape: tuple[int, ...]
    view: Callable[[torch.Tensor], torch.Tensor]


# NOTE: the rank-10 view cannot be coalesced (every dim is sliced with a step), so a strided kernel
# sees more than its 8 dims and the launcher splits it on the host.
LAYOUTS = {
    "contiguous": Layout((4, 6), lambda t: t),
    "transposed": Layout((6, 4), lambda t: t.t()),
    "sliced": Layout((8, 15), lambda t: t[::2, 1::3]),
    "expanded": Layout((1, 5), lambda t: t.expand(4, 5)),
    "zero_dim": Layout((), lambda t: t),
    "empty": Layout((0, 3), lambda t: t),
    "rank10": Layout((3,) * 10, lambda t: t[(slice(None, None, 2),) * 10]),
}

# Layouts a tensor can be written through (an expanded tensor has overlapping elements).
WRITABLE_LAYOUTS = [name for name in LAYOUTS if name != "expanded"]


def make_tensor(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of distinct-looking values spread over the dtype's range (no inf/nan)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(dtype)


def make_convertible(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of `dtype` whose conversion to every other dtype is well defined: values in
    [-128, 127] in quarter steps (cast to `dtype` on the CPU), so no float-to-int overflow."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-512, 508, shape, generator=g, dtype=torch.int64) / 4).to(dtype)


def assert_exact(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same dtype, shape and bits where it matters: equal values, NaN where expected, and the sign of zeros."""
    assert actual.device.type == "cpu", "compare CPU copies"
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if actual.dtype.is_floating_point:
        torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)
        numbers = ~torch.isnan(expected)
        assert torch.equal(torch.signbit(actual[numbers]), torch.signbit(expected[numbers])), "signs of zeros differ"
    else:
        assert torch.equal(actual, expected)


@pytest.fixture
def fallback_mode() -> Iterator[Callable[[str], None]]:
    """Call it with "warn", "silent" or "error" to switch the CPU-fallback mode for one test."""
    previous = torch.foo.get_fallback_mode()
    yield torch.foo.set_fallback_mode
    torch.foo.set_fallback_mode(previous)


@pytest.fixture
def no_fallback(fallback_mode: Callable[[str], None]) -> None:
    """Forbids the CPU fallback for one test ("error" mode): every operator it runs on foo must be a foo kernel."""
    fallback_mode("error")


Result = TypeVar("Result")


def run_like_cpu(
    cpu_call: Callable[[], Result], foo_call: Callable[[], Result], same_message: bool = False
) -> tuple[Result, Result] | None:
    """Runs `cpu_call`, then `foo_call`; returns (foo result, CPU result), or None when both raised.

    When the CPU raises, foo must raise the same exception type (exactly: NotImplementedError, which the
    forbidden fallback raises, is a RuntimeError too), and the same message when `same_message`. foo-cl's
    fallback counts must not grow during `foo_call`.
    """
    try:
        expected = cpu_call()
    except Exception as cpu_error:  # noqa: BLE001 (any error the CPU raises is the expected behaviour)
        counts = torch.foo.fallback_counts()
        try:
            foo_call()
        except Exception as foo_error:  # noqa: BLE001
            assert type(foo_error) is type(cpu_error), f"the CPU raised {cpu_error!r}, foo {foo_error!r}"
            if same_message:
                assert str(foo_error) == str(cpu_error)
        else:
            pytest.fail(f"the CPU raised {cpu_error!r}, foo did not")
        assert torch.foo.fallback_counts() == counts, "an operator ran on the CPU"
        return None
    counts = torch.foo.fallback_counts()
    actual = foo_call()
    assert torch.foo.fallback_counts() == counts, "an operator ran on the CPU"
    return actual, expected


@pytest.fixture(autouse=True)
def _restore_current_device() -> Iterator[None]:
    yield
    torch.foo.set_device(0)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "two_devices: needs foo:0 and foo:1 (skipped with a single OpenCL device)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.foo.device_count() >= 2:
        return
    skip = pytest.mark.skip(reason=f"needs two foo devices, found {torch.foo.device_count()}")
    for item in items:
        if "two_devices" in item.keywords:
            item.add_marker(skip)


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter of this venv with extra environment variables; returns
    the finished process (its output as text). Autoloading of torch.backends entry points stays on."""
    full_env = {**os.environ, **env}
    full_env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_python_json(code: str, **env: str) -> object:
    """Like run_python, for a script whose last stdout line is JSON; fails the test if the script fails."""
    proc = run_python(code, **env)
    assert proc.returncode == 0, f"script failed:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])
