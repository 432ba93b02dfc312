"""arange and linspace (kernels_cl/factory/range.cl) against the CPU: every dtype, fractional and negative
starts and steps (integers count from start and step converted to the dtype, as CPU and CUDA), values
past float32's and float64's exact integers, and out= tensors of another layout."""

import pytest
import torch
from conftest import DEVICE_DTYPES, FOO, LOW_PRECISION, assert_close_to_cpu, assert_exact, dtype_id, run_like_cpu

pytestmark = pytest.mark.usefixtures("no_fallback")

ARANGE_DTYPES = [d for d in DEVICE_DTYPES if d != torch.bool]
ARANGE_ARGS = [(0, 10, 1), (2.1, -2.9, -1.0), (-1.5, 2.0, 1.0), (-7, 5, 3), (0.5, 9.5, 0.75), (100, 0, -7)]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=str)
@pytest.mark.parametrize("dtype", ARANGE_DTYPES, ids=dtype_id)
def test_arange_matches_cpu(dtype, args):
    """Floating values may differ in the last place: foo counts float32 and 16-bit values in float32 (as CUDA),
    the CPU in float64."""
    outcome = run_like_cpu(
        lambda: torch.arange(*args, dtype=dtype), lambda: torch.arange(*args, dtype=dtype, device=FOO)
    )
    if outcome:
        assert_close_to_cpu(*outcome, LOW_PRECISION)


def test_arange_of_large_integers_is_exact():
    """int64 counts in int64, not through a float (2**53 + 1 is not a float64, 2**24 + 1 not a float32)."""
    for start in (2**53 - 3, 2**24 - 3, -(2**60)):
        assert_exact(torch.arange(start, start + 7, device=FOO).cpu(), torch.arange(start, start + 7))


def test_arange_into_a_strided_out_matches_cpu():
    expected = torch.zeros(4, 6)
    torch.arange(-3, 9, 3, out=expected[:, 2])
    out = torch.zeros(4, 6, device=FOO)
    torch.arange(-3, 9, 3, out=out[:, 2])
    assert_exact(out.cpu(), expected)


@pytest.mark.parametrize("steps", [0, 1, 2, 7, 1000])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int8, torch.uint8], ids=dtype_id)
def test_linspace_matches_cpu(dtype, steps):
    """NOTE: the CPU computes a float16 linspace's step and values in float16, foo in float32: a few of the
    float16 values differ by a unit in the last place, some of those near 0 by 4."""
    tolerances = {"rtol": 2e-3, "atol": 4e-3} if dtype == torch.float16 else {}
    for start, end in ((-3.5, 10.25), (100, 2)):
        if dtype == torch.uint8 and min(start, end) < 0:
            continue
        torch.testing.assert_close(
            torch.linspace(start, end, steps, dtype=dtype, device=FOO).cpu(),
            torch.linspace(start, end, steps, dtype=dtype),
            **tolerances,
        )
