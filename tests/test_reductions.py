"""Reductions and scans against the CPU: one table of operators run over every dim choice (none, each dim,
negative dims, all dims, pairs), keepdim, layout and dtype; then out=, empty inputs, ties and NaN in the
arg-reductions and in median and nanmedian, and inputs big enough for the two-pass and column kernels. No test may
fall back to the CPU.
"""

import math
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import torch
from conftest import (
    FLOAT_DTYPES,
    FOO,
    LAYOUTS,
    Layout,
    assert_close_to_cpu,
    assert_exact,
    dtype_id,
    failures_in_fresh_process,
    run_like_cpu,
    small_values,
)

pytestmark = [
    pytest.mark.usefixtures("no_fallback"),
    # correction=2 over fewer than 3 elements (the CPU warns, on foo too; the values are compared)
    pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0"),
]

Tensor = torch.Tensor
Dim = int | tuple[int, ...] | None

DTYPES = [*FLOAT_DTYPES, torch.int32, torch.int64, torch.uint8, torch.bool]
# NOTE: float16/bfloat16 accumulate in float32 on both devices, so they differ by the final rounding at most.
TOLERANCES = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-5},
    torch.float16: {"rtol": 2e-3, "atol": 1e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-2},
}

REDUCTION_LAYOUTS = {
    **{name: LAYOUTS[name] for name in ["contiguous", "transposed", "sliced", "expanded", "zero_dim", "empty"]},
    "permuted_4d": Layout((2, 3, 4, 10), lambda t: t[..., ::2].permute(2, 0, 3, 1)),
    # 32 contiguous columns: reductions over dim 0 take the column kernel
    "columns": Layout((65, 32), lambda t: t),
}


@dataclass(frozen=True)
class Reduction:
    """One operator as `fn(x, dim, keepdim, **kwargs)`. `dims` says which dims it takes: "many" (None for
    the whole tensor, an int or a tuple), "one" (None or an int) or "scan" (an int); `keepdim` whether it
    has that argument."""

    fn: Callable[..., object]
    dims: str = "many"
    keepdim: bool = True


def along(fn: Callable[..., object], **fixed: object) -> Callable[..., object]:
    """`fn(x, dim=dim, keepdim=keepdim, **fixed)`, for the operators that take dim=None as "every dim"."""
    return lambda x, dim, keepdim, **kwargs: fn(x, dim=dim, keepdim=keepdim, **fixed, **kwargs)


def along_or_whole(fn: Callable[..., object], **fixed: object) -> Callable[..., object]:
    """Like `along`, but dim=None calls `fn(x)` (prod, max and min have no dim=None overload)."""

    def call(x: Tensor, dim: Dim, keepdim: bool, **kwargs: object) -> object:
        if dim is None:
            return fn(x, **fixed, **kwargs)
        return fn(x, dim, keepdim=keepdim, **fixed, **kwargs)

    return call


def scan(fn: Callable[..., object], **fixed: object) -> Reduction:
    return Reduction(lambda x, dim, keepdim, **kwargs: fn(x, dim, **fixed, **kwargs), dims="scan", keepdim=False)


ORDS = [0, 1, 2, math.inf, -math.inf, 3.5]

REDUCTIONS = {
    "sum": Reduction(along(torch.sum)),
    "sum_dtype_float64": Reduction(along(torch.sum, dtype=torch.float64)),
    "mean": Reduction(along(torch.mean)),
    "mean_dtype_float32": Reduction(along(torch.mean, dtype=torch.float32)),
    "prod": Reduction(along_or_whole(torch.prod), dims="one"),
    "prod_dtype_float64": Reduction(along_or_whole(torch.prod, dtype=torch.float64), dims="one"),
    "nansum": Reduction(along(torch.nansum)),
    "nanmean": Reduction(along(torch.nanmean)),
    "amax": Reduction(along(torch.amax)),
    "amin": Reduction(along(torch.amin)),
    "max": Reduction(along_or_whole(torch.max), dims="one"),
    "min": Reduction(along_or_whole(torch.min), dims="one"),
    "argmax": Reduction(along(torch.argmax), dims="one"),
    "argmin": Reduction(along(torch.argmin), dims="one"),
    "aminmax": Reduction(along(torch.aminmax), dims="one"),
    "all": Reduction(along(torch.all)),
    "any": Reduction(along(torch.any)),
    **{
        f"{fn.__name__}_correction_{c}": Reduction(along(fn, correction=c))
        for fn in [torch.var, torch.std, torch.var_mean, torch.std_mean]
        for c in [0, 1, 2]
    },
    **{f"norm_p_{p}": Reduction(along(torch.norm, p=p)) for p in ORDS},
    **{f"vector_norm_ord_{p}": Reduction(along(torch.linalg.vector_norm, ord=p)) for p in ORDS},
    # NOTE: logsumexp has no dim=None; dim=() means every dim.
    "logsumexp": Reduction(lambda x, dim, keepdim, **kw: torch.logsumexp(x, () if dim is None else dim, keepdim, **kw)),
    "count_nonzero": Reduction(lambda x, dim, keepdim: torch.count_nonzero(x, dim=dim), keepdim=False),
    "cumsum": scan(torch.cumsum),
    "cumsum_dtype_float32": scan(torch.cumsum, dtype=torch.float32),
    "cumprod": scan(torch.cumprod),
    "cummax": scan(torch.cummax),
    "cummin": scan(torch.cummin),
}


def dim_choices(ndim: int, kind: str) -> list[Dim]:
    singles = [*range(max(ndim, 1)), -1]  # a 0-dim tensor takes dim 0 and -1
    if kind == "scan":
        return singles
    if kind == "one":
        return [None, *singles]
    pairs = [(0, -1)] if ndim >= 2 else []
    if ndim >= 4:
        pairs += [(1, 3), (-2, 0)]
    return [None, *singles, tuple(range(ndim)), *pairs]


def calls(reduction: Reduction, ndim: int) -> Iterator[tuple[Dim, bool]]:
    for dim in dim_choices(ndim, reduction.dims):
        for keepdim in [False, True] if reduction.keepdim else [False]:
            yield dim, keepdim


def reduction_values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> Tensor:
    """A CPU tensor of `dtype`: standard normal floats, or integers in [-20, 20) ([0, 40) for uint8), so
    integer reductions meet ties; products of integers wrap around the same way on both devices."""
    return small_values(shape, dtype, seed, span=40)


def compare(fn: Callable[[Tensor], object], x: Tensor, x_foo: Tensor | None = None) -> object:
    """fn on CPU tensor x and on `x_foo` (default: x copied to foo): the same results within TOLERANCES, or
    the same exception type. Returns the CPU's result (None when both raised)."""
    outcome = run_like_cpu(lambda: fn(x), lambda: fn(x.to(FOO) if x_foo is None else x_foo))
    if outcome is None:
        return None
    assert_close_to_cpu(*outcome, TOLERANCES)
    return outcome[1]


def table_failures(name: str, x: Tensor, x_foo: Tensor) -> list[str]:
    """Runs table row `name` with every dim choice and keepdim on CPU tensor x and on x_foo; describes each
    call where foo's values, indices or dtypes differ from the CPU's, or it did not raise the CPU's error."""
    reduction = REDUCTIONS[name]
    failures = []
    for dim, keepdim in calls(reduction, x.dim()):
        try:
            compare(lambda y: reduction.fn(y, dim, keepdim), x, x_foo)  # noqa: B023 (called at once)
        except Exception as e:  # noqa: BLE001 (every call runs; the test reports them all)
            failures.append(f"{name} {dtype_id(x.dtype)} dim={dim} keepdim={keepdim}: {type(e).__name__}: {e}")
    return failures


# 0-dim inputs run in a fresh process: test_zero_dim_reduction_matches_cpu.
@pytest.mark.parametrize("layout", [name for name in REDUCTION_LAYOUTS if name != "zero_dim"])
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_matches_cpu(name, dtype, layout):
    base_shape, view = REDUCTION_LAYOUTS[layout]
    base = reduction_values(base_shape, dtype)
    failures = table_failures(name, view(base), view(base.to(FOO)))
    assert not failures, "\n\n".join(failures)


def zero_dim_failures() -> list[str]:
    """table_failures of every row and dtype on 0-dim tensors; names each call on stderr before making it."""
    failures = []
    for name in REDUCTIONS:
        for dtype in DTYPES:
            print(f"calling {name} on a 0-dim {dtype_id(dtype)} tensor", file=sys.stderr, flush=True)
            x = reduction_values((), dtype)
            failures += table_failures(name, x, x.to(FOO))
    return failures


def test_zero_dim_reduction_matches_cpu():
    """The table on 0-dim tensors (which take dim 0 and -1), in a fresh process: a reduction of a 0-dim
    tensor along a dim has crashed the interpreter, which must fail this test, not end the whole run."""
    failures = failures_in_fresh_process("test_reductions", "zero_dim_failures")
    assert not failures, "\n\n".join(failures)


def test_every_reduction_runs_on_some_dtype():
    """Guards the table: a row the CPU rejects for every dtype would only ever compare two errors."""

    def runs(reduction: Reduction, dtype: torch.dtype) -> bool:
        try:
            reduction.fn(reduction_values((3,), dtype), 0, False)
        except (RuntimeError, TypeError):
            return False
        return True

    assert [name for name, r in REDUCTIONS.items() if not any(runs(r, dtype) for dtype in DTYPES)] == []


# ---- out= ----------------------------------------------------------------------------------------------

OUT_REDUCTIONS = [
    "sum", "sum_dtype_float64", "mean", "prod", "nansum", "nanmean", "amax", "amin", "max", "min", "argmax",
    "argmin", "aminmax", "all", "any", "var_correction_1", "std_correction_0", "norm_p_2", "vector_norm_ord_3.5",
    "logsumexp", "cumsum", "cumsum_dtype_float32", "cumprod", "cummax", "cummin",
]  # fmt: skip


def wrong_shape_like(result: object) -> object:
    """Output tensors of the result's dtypes but a wrong shape, which the operator must resize."""
    if isinstance(result, Tensor):
        return torch.full((3,), 7, dtype=result.dtype)
    return tuple(wrong_shape_like(r) for r in result)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("name", OUT_REDUCTIONS)
def test_out_is_resized_and_written_like_cpu(name, dtype):
    reduction = REDUCTIONS[name]
    x = reduction_values((4, 6), dtype)
    failures = []
    for dim, keepdim in calls(reduction, x.dim()):
        try:
            expected = reduction.fn(x, dim, keepdim)
        except RuntimeError:
            continue  # the functional test checks that foo raises too
        cpu_out = wrong_shape_like(expected)
        foo_out = tuple(t.to(FOO) for t in cpu_out) if isinstance(cpu_out, tuple) else cpu_out.to(FOO)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "An output with one or more elements was resized")
                outcome = run_like_cpu(
                    lambda: reduction.fn(x, dim, keepdim, out=cpu_out),  # noqa: B023 (called at once)
                    lambda: reduction.fn(x.to(FOO), dim, keepdim, out=foo_out),  # noqa: B023
                )
            if outcome:
                returned, _ = outcome
                if isinstance(foo_out, Tensor):
                    assert returned is foo_out
                else:
                    assert all(r is o for r, o in zip(returned, foo_out, strict=True))
                assert_close_to_cpu(foo_out, cpu_out, TOLERANCES)
        except Exception as e:  # noqa: BLE001
            failures.append(f"dim={dim} keepdim={keepdim}: {type(e).__name__}: {e}")
    assert not failures, "\n\n".join(failures)


# ---- empty inputs --------------------------------------------------------------------------------------

# Each gets a (0, 3) float32 tensor; the values are what PyTorch defines for reductions over nothing.
EMPTY_IDENTITIES = {
    "sum": (lambda x: x.sum(0), 0.0),
    "prod": (lambda x: x.prod(0), 1.0),
    "nansum": (lambda x: x.nansum(0), 0.0),
    "mean": (lambda x: x.mean(0), math.nan),
    "all": (lambda x: x.all(0), True),
    "any": (lambda x: x.any(0), False),
    "count_nonzero": (lambda x: torch.count_nonzero(x, 0), 0),
    "logsumexp": (lambda x: x.logsumexp(0), -math.inf),
    "vector_norm": (lambda x: torch.linalg.vector_norm(x, dim=0), 0.0),
    "var": (lambda x: x.var(0), math.nan),
    "whole_sum": (lambda x: x.sum(), 0.0),
    "whole_prod": (lambda x: x.prod(), 1.0),
}


@pytest.mark.parametrize("case", EMPTY_IDENTITIES.values(), ids=EMPTY_IDENTITIES.keys())
def test_reduction_over_nothing_gives_identity(case):
    fn, identity = case
    expected = compare(fn, torch.empty(0, 3))
    torch.testing.assert_close(expected, torch.full_like(expected, identity), equal_nan=True)


EMPTY_ERRORS = {
    "amax": lambda x: x.amax(0),
    "amin_whole": lambda x: x.amin(),
    "max_whole": lambda x: x.max(),
    "max_dim": lambda x: x.max(0),
    "argmax_whole": lambda x: x.argmax(),
    "argmin_dim": lambda x: x.argmin(0),
    "aminmax": lambda x: torch.aminmax(x),
}


@pytest.mark.parametrize("fn", EMPTY_ERRORS.values(), ids=EMPTY_ERRORS.keys())
def test_extremum_over_nothing_raises_like_cpu(fn):
    """No identity exists: the CPU raises, and so must foo, with the same exception type."""
    assert run_like_cpu(lambda: fn(torch.empty(0, 3)), lambda: fn(torch.empty(0, 3, device=FOO))) is None


SCANS = {"cumsum": torch.cumsum, "cumprod": torch.cumprod, "logcumsumexp": torch.logcumsumexp}


@pytest.mark.parametrize("scan", SCANS.values(), ids=SCANS.keys())
@pytest.mark.parametrize("shape", [(0,), (2, 0)], ids=str)
def test_scan_of_nothing_checks_its_dim_like_cpu(scan, shape):
    for dim in [len(shape), -len(shape) - 1, 3]:
        assert (
            run_like_cpu(
                lambda d=dim: scan(torch.empty(shape), d), lambda d=dim: scan(torch.empty(shape, device=FOO), d)
            )
            is None
        )


# ---- ties, NaN and infinities --------------------------------------------------------------------------

NAN, INF = math.nan, math.inf
# Rows: ties (the first occurrence wins for arg-reductions), NaN first and later (NaN is the max and the min),
# infinities with a NaN, all equal, and a NaN-free row with -0.0 and 0.0.
SPECIAL_ROWS = [
    [1.0, 3.0, 3.0, 0.0, 3.0, -1.0],
    [NAN, 2.0, NAN, 5.0, 5.0, -5.0],
    [-INF, -INF, 1.0, NAN, 0.0, INF],
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
    [-0.0, 0.0, -2.0, 7.0, -2.0, 7.0],
]
SPECIAL_OPS = {
    "argmax": lambda x, dim: x.argmax(dim),
    "argmin": lambda x, dim: x.argmin(dim),
    "max": lambda x, dim: x.max() if dim is None else x.max(dim),
    "min": lambda x, dim: x.min() if dim is None else x.min(dim),
    "amax": lambda x, dim: x.amax(() if dim is None else dim),
    "aminmax": lambda x, dim: torch.aminmax(x, dim=dim),
    "sum": lambda x, dim: x.sum(dim),
    "nansum": lambda x, dim: x.nansum(dim),
    "nanmean": lambda x, dim: x.nanmean(dim),
    "logsumexp": lambda x, dim: x.logsumexp(() if dim is None else dim),
    "vector_norm_inf": lambda x, dim: torch.linalg.vector_norm(x, math.inf, dim),
    "var": lambda x, dim: x.var(dim),
    "cumsum": lambda x, dim: x.cumsum(0 if dim is None else dim),
    "cummax": lambda x, dim: x.cummax(0 if dim is None else dim),
    "cummin": lambda x, dim: x.cummin(0 if dim is None else dim),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("name", SPECIAL_OPS)
def test_ties_nan_and_infinities_match_cpu(name, dtype):
    fn = SPECIAL_OPS[name]
    x = torch.tensor(SPECIAL_ROWS, dtype=dtype)
    failures = []
    for dim in [None, 0, 1]:
        try:
            compare(lambda y: fn(y, dim), x)  # noqa: B023
        except Exception as e:  # noqa: BLE001
            failures.append(f"dim={dim}: {type(e).__name__}: {e}")
    assert not failures, "\n\n".join(failures)


def test_arg_reductions_pick_the_first_tie_and_nan():
    """The CPU's answers, stated: the first of equal extrema, and the first NaN, which beats every number."""
    x = torch.tensor(SPECIAL_ROWS, device=FOO)
    assert x.argmax(1).tolist() == [1, 0, 3, 0, 3]
    assert x.argmin(1).tolist() == [5, 0, 3, 0, 2]
    assert x.max(1).indices.tolist() == [1, 0, 3, 0, 3]
    assert x.argmax().item() == 6


@pytest.mark.parametrize("length", [100, 1000, 70000])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_arg_reductions_along_long_rows_match_cpu(dtype, length):
    """Rows long enough for vector lanes, their tails and (70000) several slices a row: values with many ties, NaNs
    in lanes and in tails, infinities; every op gives the CPU's first index."""
    g = torch.Generator().manual_seed(length)
    x = torch.randint(-3, 4, (6, length), generator=g).to(dtype)
    x[1, [17, length // 2, length - 1]] = NAN
    x[2, length - 2] = NAN
    x[3] = 2.0
    x[4] = -INF
    x[4, length - 3] = INF
    ops = {
        "argmax": lambda t: t.argmax(1),
        "argmin": lambda t: t.argmin(1),
        "max": lambda t: t.max(1),
        "min": lambda t: t.min(1),
        "argmax_all": lambda t: t.argmax(),
        "argmin_of_rows_without_nan": lambda t: t[[0, 3, 4, 5]].argmin(1),
    }
    for op in ops.values():
        expected, actual = op(x), op(x.to(FOO))
        for want, got in zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]:
            assert_exact(got.cpu(), want)


# Rows and columns without ties among their numbers (the CPU's index of a tied median depends on its partial
# sort): a NaN first, in the middle, last, twice, and none; infinities.
MEDIAN_ROWS = [
    [NAN, 2.0, -1.0, 5.0, 0.5, 3.0],
    [4.0, -2.0, NAN, 1.0, NAN, 0.0],
    [1.5, -3.0, 2.5, 0.0, 6.0, NAN],
    [-INF, 1.0, INF, 2.0, -0.5, 3.5],
    [0.25, -0.75, 8.0, -4.0, 2.0, 1.0],
]
EXACT = {dtype: {"rtol": 0, "atol": 0} for dtype in FLOAT_DTYPES}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_with_nan_matches_cpu(name, dtype):
    """median: NaN wherever there is one, with the index of the first; nanmedian: the lower median of the numbers."""
    fn = getattr(torch, name)
    x = torch.tensor(MEDIAN_ROWS, dtype=dtype)
    for call in (fn, lambda t: fn(t, 0), lambda t: fn(t, 1), lambda t: fn(t, -1, keepdim=True)):
        outcome = run_like_cpu(lambda: call(x), lambda: call(x.to(FOO)))  # noqa: B023 (called at once)
        assert outcome is not None, "both devices raised"
        assert_close_to_cpu(*outcome, EXACT)
    rows = fn(x.to(FOO), 1)
    if name == "median":
        assert rows.indices.tolist() == [0, 2, 5, 1, 0]
    else:
        assert rows.values.tolist() == [2.0, 0.0, 1.5, 1.0, 0.25]


@pytest.mark.parametrize("length", [3, 8])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_all_nan_rows_matches_cpu(name, length):
    """Rows of NaN only (and one of numbers): NaN, and the CPU's index; all of a tensor of NaN only: NaN."""
    fn = getattr(torch, name)
    x = torch.full((3, length), NAN)
    x[1] = torch.arange(length) * 0.5 - 1
    for call in (lambda t: fn(t, 1), lambda t: fn(t[::2])):
        outcome = run_like_cpu(lambda: call(x), lambda: call(x.to(FOO)))  # noqa: B023 (called at once)
        assert outcome is not None, "both devices raised"
        assert_close_to_cpu(*outcome, EXACT)


# ---- big inputs ----------------------------------------------------------------------------------------

BIG = 2**20 + 3  # many slices per output (two passes), and a tail after the 8-wide vector loop


@pytest.mark.parametrize("position", [0, BIG // 2, BIG - 1], ids=["first", "middle", "last"])
def test_big_extremum_and_its_index(position):
    """amax/argmax over 2**20+3 elements, the maximum at `position` and again 100 and 1000 elements later
    (where there is room; in the same block of a slice and in another): the first one wins."""
    x = reduction_values((BIG,), torch.float32)
    x[position] = x[min(position + 100, BIG - 1)] = x[min(position + 1000, BIG - 1)] = 10.0
    assert compare(lambda y: (y.amax(), y.argmax(), y.max(0)), x)[1].item() == position


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32], ids=dtype_id)
def test_big_sum(dtype):
    """Values around 0.05 (integers around 1): a sum far from 0, so the relative tolerance means something,
    and below float16's largest number."""
    if dtype.is_floating_point:
        x = (reduction_values((BIG,), torch.float64) * 0.01 + 0.05).to(dtype)
        compare(lambda y: (y.sum(), y.mean(), y.nansum()), x)
    else:
        compare(lambda y: (y.sum(), y.sum(dtype=torch.float64)), reduction_values((BIG,), dtype) + 1)


@pytest.mark.parametrize(
    ("shape", "dim"),
    [((1024, 4096), None), ((1024, 4096), 1), ((1 << 20, 16), 0), ((1 << 20, 64), 0)],
    ids=["all", "rows", "columns", "vector_columns"],
)
def test_big_reductions_are_as_accurate_as_cpus(shape, dim):
    """Float32 var, std and mean of 2**22 values with mean 3 against float64 results, within CPU's
    accuracy (a few float epsilons): a Welford update per element along a slice of a million elements
    was 5e-4 off, and partial results of thousands of slices of columns folded in one chain 1.5e-5."""
    x = reduction_values(shape, torch.float32) + 3
    expected, y = x.double().var(dim), x.to(FOO)
    for var in [y.var(dim), torch.var_mean(y, dim)[0], y.std(dim) ** 2, torch.std_mean(y, dim)[0] ** 2]:
        torch.testing.assert_close(var.cpu().double(), expected, rtol=1e-6, atol=0)
    torch.testing.assert_close(y.mean(dim).cpu().double(), x.double().mean(dim), rtol=1e-6, atol=0)


# (shape, dim): one long column; many columns, scanned eight neighbours at a time (and a last two alone); rows.
LONG_SCANS = {"column": ((1 << 22, 1), 0), "columns": ((1 << 18, 18), 0), "rows": ((64, 65536), 1)}


@pytest.mark.parametrize("case", LONG_SCANS)
def test_long_cumsum_is_as_accurate_as_cpus(case):
    """A float32 running sum along 2**22, 2**18 or 65536 positive values against float64's: a single
    running sum along a row of 65536 was 1e-5 off (CPU sums in double)."""
    shape, dim = LONG_SCANS[case]
    x = reduction_values(shape, torch.float32).abs() + 0.5
    torch.testing.assert_close(x.to(FOO).cumsum(dim).cpu().double(), x.double().cumsum(dim), rtol=2e-6, atol=0)


LONG_ROW = 3 * 4096 + 5  # rows this long and few are scanned in slices (of 3074 on CPU devices)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64], ids=dtype_id)
def test_few_long_rows_scan_like_cpu(dtype):
    # Rows along dim 1, and along dim 0 of the transposed copy (two rows `inner` apart).
    x = reduction_values((2, LONG_ROW), dtype)
    scans = [torch.cumsum, torch.cumprod]
    if dtype.is_floating_point:
        x = x * 1e-3 + 1  # products near 1, sums far from 0
        scans.append(torch.logcumsumexp)
    for scan in scans:
        compare(lambda y: scan(y, 1), x)  # noqa: B023
        compare(lambda y: scan(y, 0), x.t().contiguous())  # noqa: B023


def test_scans_carry_infinities_zeros_and_nan_past_blocks_and_slices():
    x = torch.full((4, LONG_ROW), 1.0001)
    x[0, 300], x[1, 300], x[1, 5000], x[2, 9000], x[3, 4100] = math.inf, math.inf, -math.inf, math.nan, 0.0
    compare(lambda y: (y.cumsum(1), y.cumprod(1), y.logcumsumexp(1), (-y).logcumsumexp(1)), x)


# NOTE: a float32 outer reduction of a contiguous kept dim takes the column kernel where one of its widths
# divides the kept dim (on CPU devices at least 16; slices of rows, partials when there are more);
# any other one the general kernel.
COLUMN_SHAPES = [(1000, 4096), (65, 48), (64, 48), (65, 50), (3, 16), (1, 32)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=dtype_id)
@pytest.mark.parametrize("shape", COLUMN_SHAPES, ids=str)
def test_column_reduction(shape, dtype):
    compare(lambda y: (y.sum(0), y.mean(0), y.amax(0), y.sum(0, keepdim=True)), reduction_values(shape, dtype))


def test_sum_over_a_long_middle_dim():
    compare(lambda y: (y.sum(1), y.var(1), y.argmax(1)), reduction_values((3, 5000, 7), torch.float32))


REPEATED_OR_TOO_MANY_DIMS = {
    "sum": torch.sum,
    "mean": torch.mean,
    "nansum": torch.nansum,
    "var": torch.var,
    "std": torch.std,
    "var_mean": torch.var_mean,
    "std_mean": torch.std_mean,
    "amax": torch.amax,
    "count_nonzero": torch.count_nonzero,
    "vector_norm": lambda x, dim: torch.linalg.vector_norm(x, dim=dim),
}


@pytest.mark.parametrize("fn", REPEATED_OR_TOO_MANY_DIMS.values(), ids=REPEATED_OR_TOO_MANY_DIMS.keys())
@pytest.mark.parametrize("dims", ["repeated", "negative_repeat", "over_64"])
def test_repeated_dims_and_more_than_64_dims_raise_like_cpu(fn, dims):
    x = reduction_values((3, 4), torch.float32) if dims != "over_64" else reduction_values((1,) * 65, torch.float32)
    dim = {"repeated": (0, 0), "negative_repeat": (1, -1), "over_64": tuple(range(65))}[dims]
    assert run_like_cpu(lambda: fn(x, dim=dim), lambda: fn(x.to(FOO), dim=dim)) is None, "the CPU accepted it"


INTERLEAVED = {
    "sum": lambda x, dims: x.sum(dims),
    "amax_keepdim": lambda x, dims: x.amax(dims, keepdim=True),
    "var": lambda x, dims: x.var(dims),
    "argmax": lambda x, dims: x.flatten(0, 1).argmax(0),
    "max_dim": lambda x, dims: x.max(-1),
}


@pytest.mark.parametrize("fn", INTERLEAVED.values(), ids=INTERLEAVED.keys())
def test_kept_and_reduced_dims_interleaving_beyond_one_launch_match_cpu(fn):
    """18 dims reduced every other one: 9 groups of kept and 9 of reduced dims, more than one launch's
    layouts take, so the launcher reduces a copy with the kept dims first (and with a permuted input,
    outputs not in the input's order)."""
    x = reduction_values((2,) * 18, torch.float32)
    dims = tuple(range(0, 18, 2))
    for cpu_input, foo_input in [
        (x, x.to(FOO)),
        (x.permute(*range(17, -1, -1)), x.to(FOO).permute(*range(17, -1, -1))),
    ]:
        assert_close_to_cpu(*run_like_cpu(lambda: fn(cpu_input, dims), lambda: fn(foo_input, dims)), TOLERANCES)  # noqa: B023


def test_a_scan_longer_than_the_drivers_loop_limit_raises_naming_it():
    # cummax walks a whole row; cumsum slices long rows into chunks the driver runs to their end, for
    # one row and for more rows than the device takes work-items per compute unit (256 on GPU variants).
    properties = torch.foo.get_device_properties(FOO)
    limit, many = properties.loop_iteration_limit, properties.multi_processor_count * 256 + 1
    if limit == 0:
        pytest.skip("foo:0's driver runs loops of any length")
    with pytest.raises(RuntimeError, match=f"ends a work-item's loops after {limit} iterations"):
        torch.ones(limit + 1, device=FOO).cummax(0)
    assert torch.ones(limit + 1, device=FOO).cumsum(0)[-1].item() == limit + 1
    assert torch.ones(many, limit + 1, device=FOO).cumsum(1)[:, -1].eq(limit + 1).all()
