"""Indexing operators against the CPU, with the CPU fallback forbidden: index_select, gather, scatter, scatter_add,
index_add, one_hot, embedding (with max_norm too: embedding_renorm_), tril and triu, advanced indexing and index_put,
scatter_reduce and scatter with reduce=, index_copy, take, masked_scatter, searchsorted and bucketize, unique (along
a dim too), bincount and histc, deterministic mode, and index_put_'s and index_fill_'s arguments; dtypes, strided
layouts, edge cases, gradients, and errors of the CPU's exception type (out-of-range positions: IndexError at the
next synchronisation with the device).
"""

import math
from collections.abc import Callable

import conftest
import pytest
import torch
import torch.nn.functional as F
from conftest import (
    FLOAT_DTYPES,
    FOO,
    INT_DTYPES,
    LOW_PRECISION,
    assert_close_to_cpu,
    assert_exact,
    check_gradients,
    dtype_id,
    forward_backward,
    on,
    randn,
    run_like_cpu,
)
from conftest import to_foo_keeping_layout as on_foo

pytestmark = [
    pytest.mark.usefixtures("no_fallback"),
    pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter"),
    pytest.mark.filterwarnings(r"ignore:torch.searchsorted\(\). .* is non-contiguous"),
    pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta"),
]

Tensor = torch.Tensor

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int32, torch.int64, torch.int8, torch.uint8]

# Sums and products of repeated positions round in the order foo's atomics run them.
ORDER_TOLERANCES = {
    torch.float32: {"rtol": 1e-5, "atol": 1e-5},
    torch.float64: {"rtol": 1e-12, "atol": 1e-12},
    torch.float16: {"rtol": 1e-2, "atol": 1e-2},
    torch.bfloat16: {"rtol": 2e-2, "atol": 5e-2},
}


def values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> Tensor:
    """CPU values of `dtype`: standard normal floats, integers in [-3, 3] ([0, 6] for uint8), random bools."""
    return conftest.small_values(shape, dtype, seed)


def with_layout(t: Tensor, layout: str) -> Tensor:
    """A CPU tensor equal to `t`: "contiguous" (t), "transposed" (first and last dims swapped in memory) or "sliced"
    (every other element of a tensor twice as large in each dim)."""
    if layout == "transposed":
        return t.transpose(0, -1).contiguous().transpose(0, -1)
    if layout == "sliced":
        view = torch.zeros([2 * n for n in t.shape], dtype=t.dtype)[(slice(None, None, 2),) * t.dim()]
        return view.copy_(t)
    assert layout == "contiguous"
    return t


def check_raises_like_cpu(cpu_call: Callable[[], object], foo_call: Callable[[], object]) -> None:
    """The CPU raises, and foo raises the same exception type (without the fallback)."""
    assert run_like_cpu(cpu_call, foo_call) is None, "the CPU did not raise; the case is wrong"


# ---- index_select ----------------------------------------------------------------------------------------------------

INDEX_SELECT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int64, torch.bool]


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", INDEX_SELECT_DTYPES, ids=dtype_id)
def test_index_select_matches_cpu(dtype, dim, index_dtype):
    x = (randn(3, 4, 5) * 50).to(dtype)
    index = torch.tensor([2, 0, 2, 1, 2], dtype=index_dtype)[: x.shape[dim]]
    assert_exact(x.to(FOO).index_select(dim, index.to(FOO)).cpu(), x.index_select(dim, index))
    # a strided self, a strided index, and a strided out=
    y = x.transpose(0, 2)
    strided_index = index.repeat_interleave(2)[::2]
    out = torch.empty(y.index_select(dim, index).shape[::-1], dtype=dtype, device=FOO).permute(2, 1, 0)
    torch.index_select(on(FOO, y), dim, on(FOO, strided_index), out=out)
    assert_exact(out.cpu(), y.index_select(dim, strided_index))


def test_index_select_of_0d_and_empty_tensors_matches_cpu():
    x = randn(3, 4)
    for self_, dim, index in [
        (torch.tensor(2.5), 0, torch.tensor([0])),
        (torch.tensor(2.5), 0, torch.tensor(0)),
        (x, 1, torch.tensor(3)),
        (x, 1, torch.tensor([], dtype=torch.int64)),
        (randn(0, 4), 1, torch.tensor([1, 1])),
    ]:
        assert_exact(self_.to(FOO).index_select(dim, index.to(FOO)).cpu(), self_.index_select(dim, index))


def test_index_select_of_0d_self_with_two_indices_raises_like_cpu():
    outcome = run_like_cpu(
        lambda: torch.tensor(2.5).index_select(0, torch.tensor([0, 0])),
        lambda: torch.tensor(2.5, device=FOO).index_select(0, torch.tensor([0, 0], device=FOO)),
    )
    assert outcome is None


@pytest.mark.parametrize("index", [[0, 4], [-1], [1, 9, 0]], ids=["size", "negative", "far"])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select_out_of_range_raises_index_error(dim, index):
    """As CPU's along dim 0 (along other dims CPU's float kernel raises a RuntimeError instead), at the next
    synchronisation with the device (here the copy to the CPU), as CUDA reports its device-side asserts."""
    x, positions = randn(4, 4, 4), torch.tensor(index)
    selected = x.to(FOO).index_select(dim, positions.to(FOO))
    with pytest.raises(IndexError, match="index out of range in self"):
        selected.cpu()
    if dim == 0:
        with pytest.raises(IndexError, match="index out of range in self"):
            x.index_select(dim, positions)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select_with_a_bad_position_writes_zeros_there_and_the_cpus_rows_elsewhere(dim):
    """Rows of 37 elements over several work-items' ranges, which start and end inside rows."""
    x = randn(3, 50, 37)
    index = torch.arange(40) % x.shape[dim]
    index[17] = -3
    selected = x.to(FOO).index_select(dim, index.to(FOO))
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.foo.synchronize()
    expected = x.index_select(dim, index.clamp(min=0))
    expected.select(dim, 17).zero_()
    assert_exact(selected.cpu(), expected)


def test_index_select_gradient_matches_cpu():
    check_gradients(lambda x, i: x.index_select(1, i), [randn(3, 4, 5)], (torch.tensor([0, 2, 2, 3]),))


# ---- gather, scatter, scatter_add, index_add, one_hot, embedding, tril and triu --------------------------------------

SCATTER_DTYPES = [*FLOAT_DTYPES, *INT_DTYPES, torch.bool]


def small_values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> Tensor:
    """Values in {0, 1, 2} (so integer and 16-bit sums are exact in any order)."""
    return torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", SCATTER_DTYPES, ids=dtype_id)
def test_gather_scatter_and_scatter_add_match_cpu(dtype, dim):
    self_ = small_values((4, 5, 6), dtype)
    index_shape = [3, 4, 5]
    index_shape[dim] = 7  # repeated positions along dim
    index = torch.randint(0, self_.size(dim), index_shape, generator=torch.Generator().manual_seed(1))
    src = small_values(tuple(index_shape), dtype, seed=2)
    for op in (
        lambda s, i, x: s.gather(dim, i),
        lambda s, i, x: s.scatter_add(dim, i, x),
        lambda s, i, x: s.clone().scatter_add_(dim, i, x),
        lambda s, i, x: s.scatter(dim, i[:1] if dim == 0 else i.narrow(dim, 0, 1), 1),
    ):
        assert_exact(op(self_.to(FOO), index.to(FOO), src.to(FOO)).cpu(), op(self_, index, src))


def test_scatter_with_distinct_positions_matches_cpu():
    self_, src = randn(5, 4), randn(2, 4, seed=1)
    index = torch.tensor([[4, 0, 1, 3], [2, 3, 0, 1]])
    assert_exact(self_.to(FOO).scatter(0, index.to(FOO), src.to(FOO)).cpu(), self_.scatter(0, index, src))


def test_gather_and_scatter_add_gradients_match_cpu():
    index = torch.tensor([[0, 2, 2], [1, 0, 1]])
    check_gradients(lambda x, i: x.gather(1, i), [randn(2, 4)], (index,))
    check_gradients(lambda x, s, i: x.scatter_add(1, i, s), [randn(2, 4), randn(2, 3, seed=1)], (index,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64], ids=dtype_id)
def test_index_add_matches_cpu(dtype):
    self_, source = small_values((3, 5), dtype), small_values((3, 4), dtype, seed=1)
    index = torch.tensor([4, 0, 4, 2])
    assert_exact(
        self_.to(FOO).index_add(1, index.to(FOO), source.to(FOO), alpha=2).cpu(),
        self_.index_add(1, index, source, alpha=2),
    )


def tensor(values, d):
    return torch.tensor(values, device=d)


# name: an op on device d given an out-of-range position (the CPU raises IndexError or RuntimeError)
OUT_OF_RANGE_POSITIONS = {
    "gather": lambda d: torch.zeros(3, 4, device=d).gather(1, tensor([[0, 4]], d)),
    "scatter": lambda d: torch.zeros(3, 4, device=d).scatter(0, tensor([[3]], d), torch.ones(1, 1, device=d)),
    "scatter_value": lambda d: torch.zeros(3, 4, device=d).scatter_(1, tensor([[-1]], d), 2.0),
    "scatter_add": lambda d: torch.zeros(3, 4, device=d).scatter_add(0, tensor([[-1]], d), torch.ones(1, 1, device=d)),
    "scatter_reduce_sum": lambda d: torch.zeros(3, 4, device=d).scatter_reduce(
        0, tensor([[3]], d), torch.ones(1, 1, device=d), "sum"
    ),
    "scatter_reduce_amax_negative": lambda d: torch.zeros(3, 4, device=d).scatter_reduce(
        1, tensor([[-1]], d), torch.ones(1, 1, device=d), "amax", include_self=False
    ),
    "scatter_multiply": lambda d: torch.zeros(3, 4, device=d).scatter_(0, tensor([[3]], d), 2.0, reduce="multiply"),
    "index_add": lambda d: torch.zeros(4, 3, device=d).index_add(0, tensor([4, 1], d), torch.ones(2, 3, device=d)),
    "index_copy_negative": lambda d: torch.zeros(4, 3, device=d).index_copy(
        1, tensor([-1], d), torch.ones(4, 1, device=d)
    ),
    "index_reduce": lambda d: torch.zeros(4, 3, device=d).index_reduce(
        0, tensor([5], d), torch.ones(1, 3, device=d), "prod"
    ),
    "index_fill": lambda d: torch.zeros(3, 2, device=d).index_fill_(0, tensor([3], d), 1),
    "index_fill_below": lambda d: torch.zeros(3, 2, device=d).index_fill_(0, tensor([-4], d), 1),
    "take": lambda d: torch.arange(20.0, device=d).view(4, 5).take(tensor([3, 20], d)),
    "take_below": lambda d: torch.arange(20.0, device=d).view(4, 5).take(tensor([-21], d)),
    "put": lambda d: torch.zeros(4, 5, device=d).put_(tensor([20], d), torch.ones(1, device=d)),
    "indexing": lambda d: torch.zeros(4, 2, device=d)[tensor([0, 4], d)],
    "indexing_below": lambda d: torch.zeros(4, 2, device=d)[tensor([-5], d)],
    "indexing_second_of_two_dims": lambda d: torch.zeros(4, 2, device=d)[tensor([0, 1], d), tensor([1, 2], d)],
    "index_put": lambda d: torch.zeros(4, 2, device=d).index_put_((tensor([7], d),), torch.ones(1, device=d)),
    "index_put_accumulate": lambda d: torch.zeros(4, 2, device=d).index_put_(
        (tensor([1], d), tensor([-3], d)), torch.ones(1, device=d), accumulate=True
    ),
}


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic", "deterministic"])
@pytest.mark.parametrize("case", OUT_OF_RANGE_POSITIONS.values(), ids=OUT_OF_RANGE_POSITIONS.keys())
def test_out_of_range_positions_raise_index_error_at_the_next_synchronisation(case, deterministic):
    """The CPU raises at the op; foo's kernels report the position and the op returns without waiting for the
    device, and the next synchronisation raises IndexError once, as CUDA reports its device-side asserts."""
    with pytest.raises((IndexError, RuntimeError), match="out of (bounds|range)"):
        case("cpu")
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(deterministic)
    try:
        case(FOO)
    finally:
        torch.use_deterministic_algorithms(previous)
    with pytest.raises(IndexError, match="out of bounds for its dimension.*at the next synchronisation"):
        torch.foo.synchronize()
    torch.foo.synchronize()  # reported once


# name: (an op writing on device d at positions with a bad one, the same op at the good positions only)
BAD_WRITES = {
    "index_fill": (
        lambda d: torch.zeros(3, 2, device=d).index_fill_(0, tensor([1, 3], d), 2.0),
        lambda d: torch.zeros(3, 2, device=d).index_fill_(0, tensor([1], d), 2.0),
    ),
    "index_put": (
        lambda d: torch.zeros(4, device=d).index_put_((tensor([0, 7], d),), tensor([1.0, 2.0], d)),
        lambda d: torch.zeros(4, device=d).index_put_((tensor([0], d),), tensor([1.0], d)),
    ),
    "index_put_accumulate": (
        lambda d: torch.zeros(3, 2, device=d).index_put_(
            (tensor([1, 9, 2], d), tensor([0, 1, -1], d)), tensor([3.0, 4.0, 5.0], d), accumulate=True
        ),
        lambda d: torch.zeros(3, 2, device=d).index_put_(
            (tensor([1, 2], d), tensor([0, -1], d)), tensor([3.0, 5.0], d), accumulate=True
        ),
    ),
    "put": (
        lambda d: torch.zeros(2, 3, device=d).put_(tensor([2, 20, -1], d), tensor([5.0, 6.0, 7.0], d)),
        lambda d: torch.zeros(2, 3, device=d).put_(tensor([2, -1], d), tensor([5.0, 7.0], d)),
    ),
    "scatter_add": (
        lambda d: torch.zeros(3, 3, device=d).scatter_add(0, tensor([[0, 5, 1]], d), torch.ones(1, 3, device=d)),
        lambda d: torch.zeros(3, 3, device=d).index_put_((tensor([0, 1], d), tensor([0, 2], d)), tensor(1.0, d)),
    ),
    "scatter": (
        lambda d: torch.zeros(3, 3, device=d).scatter(1, tensor([[2, -1, 0]], d), 4.0),
        lambda d: torch.zeros(3, 3, device=d).index_put_((tensor([0, 0], d), tensor([2, 0], d)), tensor(4.0, d)),
    ),
}


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic", "deterministic"])
@pytest.mark.parametrize("case", BAD_WRITES.values(), ids=BAD_WRITES.keys())
def test_writes_leave_bad_positions_out(case, deterministic):
    """A bad position raises at the next synchronisation and writes nothing; the good ones are written as the CPU
    writes them (not clamped into the first or last element)."""
    with_bad, good_only = case
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(deterministic)
    try:
        written = with_bad(FOO)
    finally:
        torch.use_deterministic_algorithms(previous)
    with pytest.raises(IndexError, match="out of bounds for its dimension"):
        torch.foo.synchronize()
    assert_exact(written.cpu(), good_only("cpu"))


def test_an_out_of_range_gather_position_leaves_the_others_right():
    x, index = randn(3, 4), torch.tensor([[0, 4, 3], [-1, 1, 2]])
    gathered = x.to(FOO).gather(1, index.to(FOO))
    with pytest.raises(IndexError, match="out of bounds"):
        gathered.cpu()
    good = torch.tensor([[True, False, True], [False, True, True]])
    assert_exact(gathered.cpu()[good], x.gather(1, index.clamp(0, 3))[good])


def test_one_hot_matches_cpu():
    labels = torch.tensor([3, 0, 4, 4])
    assert_exact(F.one_hot(labels.to(FOO), 6).cpu(), F.one_hot(labels, 6))


# Indices into 7 rows with repeats; row 3 is never used.
EMBEDDING_INDICES = torch.tensor([[1, 4, 1, 0], [6, 1, 2, 4], [5, 5, 5, 5]])


@pytest.mark.parametrize("scale_grad_by_freq", [False, True], ids=["unscaled", "scaled_by_frequency"])
@pytest.mark.parametrize("padding_idx", [None, 1, -2], ids=["no_padding", "padding_1", "padding_minus_2"])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_embedding_matches_cpu(dtype, index_dtype, padding_idx, scale_grad_by_freq):
    def fn(weight: Tensor, indices: Tensor) -> Tensor:
        return F.embedding(indices, weight, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)

    # 16-bit: CPU sums the repeated rows' gradients in the 16-bit dtype, foo in float32
    check_gradients(fn, [randn(7, 6, dtype=dtype)], (EMBEDDING_INDICES.to(index_dtype),), LOW_PRECISION)


@pytest.mark.parametrize("dim", [8, 37])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True], ids=["unscaled", "scaled_by_frequency"])
def test_embedding_gradient_of_many_repeats_is_deterministic(scale_grad_by_freq, dim):
    """300 lookups of 5 rows (of 8 elements, or 37: blocks of 8 and a partial one): the sums of the gradient
    rows, in the indices' order, equal the CPU's (to the bit when unscaled; CPU scales each row before summing)
    and are the same on every run."""
    indices = torch.randint(0, 5, (300,), generator=torch.Generator().manual_seed(0))
    grad = randn(300, dim, seed=1)

    def weight_grad(device: torch.device | str) -> Tensor:
        weight = randn(5, dim).to(device).requires_grad_()
        F.embedding(indices.to(device), weight, scale_grad_by_freq=scale_grad_by_freq).backward(grad.to(device))
        return weight.grad.cpu()

    first, expected = weight_grad(FOO), weight_grad("cpu")
    assert_exact(weight_grad(FOO), first)
    if scale_grad_by_freq:
        torch.testing.assert_close(first, expected)
    else:
        assert_exact(first, expected)


@pytest.mark.parametrize("synchronisation", ["item", "synchronize", "stream", "event"])
def test_embedding_out_of_range_index_raises_index_error_at_the_next_synchronisation(synchronisation):
    """The kernel reports the index; the op returns, and the next synchronisation of any kind raises IndexError once.
    The rows of the good indices are still right."""
    weight, indices = randn(5, 3), torch.tensor([1, 5, -1, 4])
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(indices, weight)
    rows = F.embedding(indices.to(FOO), weight.to(FOO))
    with pytest.raises(IndexError, match="index out of range in self.*at the next synchronisation"):
        if synchronisation == "item":
            rows.sum().item()
        elif synchronisation == "synchronize":
            torch.foo.synchronize()
        elif synchronisation == "stream":
            torch.foo.current_stream().synchronize()
        else:
            event = torch.foo.Event()
            event.record()
            event.synchronize()
    torch.foo.synchronize()  # reported once
    torch.testing.assert_close(rows[[0, 3]].cpu(), weight[[1, 4]])


def test_an_index_error_on_a_side_stream_raises_at_that_streams_synchronisation():
    weight, indices = randn(5, 3).to(FOO), torch.tensor([1, 5], device=FOO)
    side = torch.foo.Stream()
    side.wait_stream(torch.foo.current_stream())
    with torch.foo.stream(side):
        F.embedding(indices, weight)
    torch.foo.current_stream().synchronize()  # no kernel of its own took the error word
    with pytest.raises(IndexError, match="index out of range in self"):
        side.synchronize()
    torch.foo.synchronize()  # reported once


def test_sparse_embedding_gradient_raises_a_clear_error():
    embedding = torch.nn.Embedding(10, 3, sparse=True).to(FOO)
    output = embedding(torch.tensor([1, 2, 2], device=FOO))
    with pytest.raises(RuntimeError, match="foo has no sparse tensors.*sparse=False"):
        output.sum().backward()


@pytest.mark.parametrize("in_place", [False, True], ids=["out_of_place", "in_place"])
@pytest.mark.parametrize("diagonal", [-5, -2, -1, 0, 1, 3, 6])
@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bool, torch.int16], ids=dtype_id)
def test_tril_triu_match_cpu(dtype, op, diagonal, in_place):
    x = randn(2, 3, 4, 5) if dtype.is_floating_point else torch.randint(-5, 5, (2, 3, 4, 5)).to(dtype)
    for view in (lambda t: t, lambda t: t.transpose(-1, -2), lambda t: t[1, :, 1:]):
        if in_place:
            expected, actual = view(x.clone()), view(on(FOO, x))
            getattr(expected, f"{op}_")(diagonal)
            result = getattr(actual, f"{op}_")(diagonal)
            assert result is actual
        else:
            expected, actual = getattr(view(x), op)(diagonal), getattr(view(on(FOO, x)), op)(diagonal)
        assert_exact(actual.cpu(), expected)


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tril_triu_gradient_and_out_match_cpu(op):
    check_gradients(lambda x: getattr(torch, op)(x, -1), [randn(2, 4, 3)])
    out = torch.empty(0, device=FOO)
    getattr(torch, op)(randn(3, 3).to(FOO), 1, out=out)
    assert_exact(out.cpu(), getattr(torch, op)(randn(3, 3), 1))


# ---- advanced indexing and index_put ---------------------------------------------------------------------------------


def index_cases(device: torch.device | str, t: Tensor) -> list[tuple]:
    """Index expressions of numpy's kinds: one index tensor, several (adjacent or not), masks, negatives."""
    i = torch.tensor([0, 2, -1], device=device)
    return [
        (i,),
        (slice(None), torch.tensor([[1, 4], [0, 0]], device=device)),
        (torch.tensor([0, 1], device=device), slice(None), torch.tensor([5, 2], device=device)),
        (slice(None), torch.tensor([0, 1], device=device), torch.tensor([5, 2], device=device)),
        (t > 0.5,),
        ((t > 0)[:, :, 0],),
        (1, torch.tensor([3], device=device)),
        (Ellipsis, torch.tensor([1, 1], device=device)),
    ]


@pytest.mark.parametrize("case", range(8))
def test_advanced_indexing_matches_cpu(case):
    x = randn(4, 5, 6)
    expected = x[index_cases("cpu", x)[case]]
    actual = x.to(FOO)[index_cases(FOO, x.to(FOO))[case]]
    assert_exact(actual.cpu(), expected)


@pytest.mark.parametrize("accumulate", [False, True], ids=["assign", "accumulate"])
def test_index_put_matches_cpu(accumulate):
    x = randn(4, 5, 6)
    for make_index, values in [
        (lambda d: (torch.tensor([0, 2, 3], device=d),), randn(3, 5, 6, seed=1)),
        (lambda d: (torch.tensor([0, 1], device=d), torch.tensor([4, 2], device=d)), randn(2, 6, seed=2)),
        (lambda d: (x.to(d) > 0,), torch.tensor(1.5)),
    ]:
        expected = x.clone().index_put_(make_index("cpu"), values, accumulate=accumulate)
        actual = x.to(FOO).index_put_(make_index(FOO), values.to(FOO), accumulate=accumulate)
        torch.testing.assert_close(actual.cpu(), expected)


def test_indexing_gradient_matches_cpu():
    check_gradients(lambda w, i: w[i], [randn(6, 3)], (torch.tensor([1, 1, 4, 0]),))


# ---- scatter_reduce ----------------------------------------------------------------------------------------------

SCATTER_REDUCES = ["sum", "prod", "mean", "amax", "amin"]
SCATTER_REDUCE_DTYPES = [*FLOATS, *INTS]


def scatter_reduce_inputs(dim: int, dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
    """self (5, 6); an index with repeated positions along `dim` (7 into 5 rows, or 9 into 6 columns) that leaves
    some of self untouched; a src larger than the index."""
    index_shape, src_shape = ((7, 4), (8, 5)) if dim == 0 else ((4, 9), (5, 10))
    index = torch.randint(0, (5, 6)[dim], index_shape, generator=torch.Generator().manual_seed(1))
    return values((5, 6), dtype), index, values(src_shape, dtype, seed=2)


def assert_reduced_like_cpu(actual: Tensor, expected: Tensor, reduce: str) -> None:
    """Exact, but for float sums, products and means (whose rounding depends on the order of repeats)."""
    if expected.dtype.is_floating_point and reduce not in ("amax", "amin"):
        assert_close_to_cpu(actual, expected, ORDER_TOLERANCES)
    else:
        assert actual.device.type == "foo"
        assert_exact(actual.cpu(), expected)


@pytest.mark.parametrize("include_self", [True, False], ids=["include_self", "exclude_self"])
@pytest.mark.parametrize("dim", [0, -1], ids=["dim0", "dim_last"])
@pytest.mark.parametrize("reduce", SCATTER_REDUCES)
@pytest.mark.parametrize("dtype", SCATTER_REDUCE_DTYPES, ids=dtype_id)
def test_scatter_reduce_matches_cpu(dtype, reduce, dim, include_self):
    self_, index, src = scatter_reduce_inputs(dim, dtype)
    expected = self_.scatter_reduce(dim, index, src, reduce, include_self=include_self)
    assert not torch.equal(expected, self_)
    actual = torch.scatter_reduce(self_.to(FOO), dim, index.to(FOO), src.to(FOO), reduce, include_self=include_self)
    assert_reduced_like_cpu(actual, expected, reduce)
    in_place = self_.to(FOO)
    assert in_place.scatter_reduce_(dim, index.to(FOO), src.to(FOO), reduce, include_self=include_self) is in_place
    assert_reduced_like_cpu(in_place, expected, reduce)


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
@pytest.mark.parametrize("reduce", SCATTER_REDUCES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dtype_id)
def test_scatter_reduce_of_strided_tensors_matches_cpu(dtype, reduce, layout):
    """self, index and src all strided; in place, the result is written through self's strides."""
    for dim in (0, 1):
        for include_self in (True, False):
            self_, index, src = (with_layout(t, layout) for t in scatter_reduce_inputs(dim, dtype))
            expected = self_.scatter_reduce(dim, index, src, reduce, include_self=include_self)
            foo_self = on_foo(self_)
            actual = foo_self.scatter_reduce(dim, on_foo(index), on_foo(src), reduce, include_self=include_self)
            assert_reduced_like_cpu(actual, expected, reduce)
            foo_self.scatter_reduce_(dim, on_foo(index), on_foo(src), reduce, include_self=include_self)
            assert foo_self.stride() == self_.stride()
            assert_reduced_like_cpu(foo_self, expected, reduce)


# name: (self, dim, index, src, reduce, include_self)
SCATTER_REDUCE_EDGE_CASES = {
    "zero_dim": (torch.tensor(1.5), 0, torch.tensor(0), torch.tensor(5.0), "sum", True),
    "zero_dim_self_two_positions": (torch.tensor(1.5), 0, torch.tensor([0, 0]), torch.tensor([5.0, 7.0]), "amax", True),
    "empty_index": (randn(2, 3), 0, torch.zeros(0, 3, dtype=torch.int64), randn(0, 3), "prod", False),
    "int32_index": (randn(3, 4), 1, torch.tensor([[0, 3, 3], [1, 1, 1]], dtype=torch.int32), randn(2, 3), "sum", True),
    "3d_middle_dim": (randn(2, 3, 4), 1, torch.tensor([[[2, 0], [2, 2]]]), randn(1, 2, 2, seed=1), "mean", False),
    "all_minus_inf": (torch.tensor([-math.inf, 0.0]), 0, torch.tensor([0]), torch.tensor([-math.inf]), "amax", False),
    "int_mean_rounds_down": (
        torch.tensor([0, 5, -7]),
        0,
        torch.tensor([0, 0, 1, 2, 2]),
        torch.tensor([-1, -2, 2, 4, -1]),
        "mean",
        True,
    ),
}


@pytest.mark.parametrize("case", SCATTER_REDUCE_EDGE_CASES.values(), ids=SCATTER_REDUCE_EDGE_CASES.keys())
def test_scatter_reduce_edge_cases_match_cpu(case):
    self_, dim, index, src, reduce, include_self = case
    outcome = run_like_cpu(
        lambda: self_.scatter_reduce(dim, index, src, reduce, include_self=include_self),
        lambda: self_.to(FOO).scatter_reduce(dim, index.to(FOO), src.to(FOO), reduce, include_self=include_self),
    )
    assert outcome is not None, "the CPU raised; the case is wrong"
    assert_reduced_like_cpu(*outcome, reduce)


@pytest.mark.parametrize("include_self", [True, False], ids=["include_self", "exclude_self"])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_scatter_reduce_propagates_nan_like_cpu(reduce, include_self):
    nan = math.nan
    self_ = torch.tensor([[1.0, nan, 3.0], [4.0, 5.0, 6.0]])
    index = torch.tensor([[0, 0, 1], [0, 1, 1], [1, 0, 0]])
    src = torch.tensor([[nan, 2.0, -1.0], [7.0, -3.0, 9.0], [0.5, nan, 8.0]])
    expected = self_.scatter_reduce(0, index, src, reduce, include_self=include_self)
    assert expected.isnan().any() and not expected.isnan().all()
    actual = self_.to(FOO).scatter_reduce(0, index.to(FOO), src.to(FOO), reduce, include_self=include_self)
    assert_exact(actual.cpu(), expected)


SCATTER_REDUCE_ERRORS = {
    "src_dtype": (0, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64), "sum"),
    "index_larger_than_src": (0, torch.tensor([[0, 1, 2]]), torch.ones(1, 2), "prod"),
    "index_rank": (0, torch.tensor([0]), torch.ones(1), "mean"),
    "unknown_reduce": (0, torch.tensor([[0]]), torch.ones(1, 1), "median"),
}


@pytest.mark.parametrize("case", SCATTER_REDUCE_ERRORS.values(), ids=SCATTER_REDUCE_ERRORS.keys())
def test_scatter_reduce_errors_match_cpu(case):
    dim, index, src, reduce = case
    self_ = torch.zeros(3, 4)
    check_raises_like_cpu(
        lambda: self_.scatter_reduce(dim, index, src, reduce),
        lambda: self_.to(FOO).scatter_reduce(dim, index.to(FOO), src.to(FOO), reduce),
    )


def tied_values(*shape: int, seed: int) -> Tensor:
    """Floats in {-1, 0, 1, 2}: many equal values, so amax has ties between self and src."""
    return torch.randint(-1, 3, shape, generator=torch.Generator().manual_seed(seed)).float()


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize("reduce", ["sum", "amax"])
def test_scatter_reduce_gradient_matches_cpu(reduce, ties):
    index = torch.tensor([[0, 1, 2], [0, 1, 2], [3, 3, 3], [0, 0, 0], [1, 2, 3]])
    self_, src = (tied_values(4, 3, seed=0), tied_values(5, 3, seed=1)) if ties else (randn(4, 3), randn(5, 3, seed=1))
    # along dim 1, every tensor is a transposed view
    for dim, x, y, i in ((0, self_, src, index), (1, self_.t(), src.t(), index.t())):
        check_gradients(
            lambda s, v, idx, dim=dim: s.scatter_reduce(dim, idx, v, reduce, include_self=True), [x, y], (i,)
        )


# ---- scatter with reduce= ----------------------------------------------------------------------------------------

SCATTER_WITH_REDUCE_DTYPES = [*FLOATS, *INTS]


def scatter_inputs(dim: int, dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
    """self (3, 5) of values in [0, 3], an index with up to five repeats of a position, src of 1s and 2s: every sum
    and product is exact in every dtype (or wraps the same way in any order)."""
    g = torch.Generator().manual_seed(3)
    index_shape, src_shape = ((5, 4), (5, 5)) if dim == 0 else ((2, 7), (3, 7))
    index = torch.randint(0, (3, 5)[dim], index_shape, generator=g)
    self_ = torch.randint(0, 4, (3, 5), generator=g).to(dtype)
    return self_, index, torch.randint(1, 3, src_shape, generator=g).to(dtype)


@pytest.mark.parametrize("source", ["tensor", "value"])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dim", [0, 1], ids=["dim0", "dim1"])
@pytest.mark.parametrize("dtype", SCATTER_WITH_REDUCE_DTYPES, ids=dtype_id)
def test_scatter_with_reduce_matches_cpu(dtype, dim, reduce, source):
    self_, index, src = scatter_inputs(dim, dtype)
    foo_src = src.to(FOO) if source == "tensor" else 2
    cpu_src = src if source == "tensor" else 2
    expected = self_.clone().scatter_(dim, index, cpu_src, reduce=reduce)
    assert not torch.equal(expected, self_)
    in_place = self_.to(FOO)
    assert in_place.scatter_(dim, index.to(FOO), foo_src, reduce=reduce) is in_place
    assert_exact(in_place.cpu(), expected)
    assert_exact(self_.to(FOO).scatter(dim, index.to(FOO), foo_src, reduce=reduce).cpu(), expected)


@pytest.mark.parametrize("source", ["tensor", "value"])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("layout", ["transposed", "sliced"])
def test_scatter_with_reduce_into_strided_self_matches_cpu(layout, reduce, source):
    for dim in (0, 1):
        self_, index, src = (with_layout(t, layout) for t in scatter_inputs(dim, torch.float32))
        expected = self_.clone().scatter_(dim, index, src if source == "tensor" else 1.5, reduce=reduce)
        actual = on_foo(self_)
        actual.scatter_(dim, on_foo(index), on_foo(src) if source == "tensor" else 1.5, reduce=reduce)
        assert actual.stride() == self_.stride()
        assert_exact(actual.cpu(), expected)


SCATTER_WITH_REDUCE_ERRORS = {
    "unknown_reduce": (torch.tensor([[0]]), "mean"),
}


@pytest.mark.parametrize("source", ["tensor", "value"])
@pytest.mark.parametrize("case", SCATTER_WITH_REDUCE_ERRORS.values(), ids=SCATTER_WITH_REDUCE_ERRORS.keys())
def test_scatter_with_reduce_errors_match_cpu(case, source):
    index, reduce = case
    src = torch.ones(1, 1)
    check_raises_like_cpu(
        lambda: torch.zeros(3, 4).scatter_(0, index, src if source == "tensor" else 2.0, reduce=reduce),
        lambda: torch.zeros(3, 4, device=FOO).scatter_(
            0, index.to(FOO), src.to(FOO) if source == "tensor" else 2.0, reduce=reduce
        ),
    )


# ---- index_copy --------------------------------------------------------------------------------------------------

INDEX_COPY_DTYPES = [*FLOATS, *INTS, torch.bool]


@pytest.mark.parametrize("dim", [0, 1, -1], ids=["dim0", "dim1", "dim_last"])
@pytest.mark.parametrize("dtype", INDEX_COPY_DTYPES, ids=dtype_id)
def test_index_copy_matches_cpu(dtype, dim):
    self_ = values((5, 6, 3), dtype)
    index = torch.tensor([2, 0, 1]) if dim == -1 else torch.tensor([4, 0, 2])
    source_shape = list(self_.shape)
    source_shape[dim] = 3
    source = values(tuple(source_shape), dtype, seed=1)
    expected = self_.index_copy(dim, index, source)
    assert_exact(torch.index_copy(self_.to(FOO), dim, index.to(FOO), source.to(FOO)).cpu(), expected)
    in_place = self_.to(FOO)
    assert in_place.index_copy_(dim, index.to(FOO), source.to(FOO)) is in_place
    assert_exact(in_place.cpu(), expected)


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dtype_id)
def test_index_copy_of_strided_tensors_matches_cpu(dtype, layout):
    """A strided self (written in place through its strides), source and index."""
    for dim in (0, 1):
        self_ = with_layout(values((5, 6), dtype), layout)
        index = with_layout(torch.tensor([3, 0, 4]), layout)
        source = with_layout(values((3, 6) if dim == 0 else (5, 3), dtype, seed=1), layout)
        expected = self_.index_copy(dim, index, source)
        assert_exact(on_foo(self_).index_copy(dim, on_foo(index), on_foo(source)).cpu(), expected)
        actual = on_foo(self_)
        actual.index_copy_(dim, on_foo(index), on_foo(source))
        assert actual.stride() == self_.stride()
        assert_exact(actual.cpu(), expected)


# name: (self, dim, index, source)
INDEX_COPY_EDGE_CASES = {
    "zero_dim_self": (torch.tensor(1.5), 0, torch.tensor([0]), torch.tensor([5.0])),
    "all_zero_dim": (torch.tensor(1.5), 0, torch.tensor(0), torch.tensor(5.0)),
    "1d": (torch.zeros(5), 0, torch.tensor([4, 0]), torch.tensor([1.0, 2.0])),
    "1d_zero_dim_index": (torch.zeros(5), 0, torch.tensor(2), torch.tensor(7.0)),
    "zero_dim_index_into_2d": (torch.zeros(4, 3), 1, torch.tensor(2), torch.ones(4, 1)),
    "empty_index": (torch.zeros(4, 3), 0, torch.tensor([], dtype=torch.int64), torch.ones(0, 3)),
    "empty_self": (torch.zeros(0, 3), 1, torch.tensor([2, 0]), torch.ones(0, 2)),
}


@pytest.mark.parametrize("case", INDEX_COPY_EDGE_CASES.values(), ids=INDEX_COPY_EDGE_CASES.keys())
def test_index_copy_edge_cases_match_cpu(case):
    self_, dim, index, source = case
    outcome = run_like_cpu(
        lambda: self_.index_copy(dim, index, source),
        lambda: self_.to(FOO).index_copy(dim, index.to(FOO), source.to(FOO)),
    )
    assert outcome is not None, "the CPU raised; the case is wrong"
    assert_exact(outcome[0].cpu(), outcome[1])


# name: (dim, index, source) into zeros(4, 3)
INDEX_COPY_ERRORS = {
    "int32_index": (0, torch.tensor([3, 1], dtype=torch.int32), torch.ones(2, 3)),
    "float_index": (0, torch.tensor([1.0]), torch.ones(1, 3)),
    "2d_index": (0, torch.tensor([[1]]), torch.ones(1, 3)),
    "count_differs_from_source": (0, torch.tensor([1, 2]), torch.ones(3, 3)),
    "slice_shapes_differ": (0, torch.tensor([1, 2]), torch.ones(2, 4)),
    "source_dtype": (0, torch.tensor([1]), torch.ones(1, 3, dtype=torch.float64)),
    "source_rank": (1, torch.tensor(2), torch.ones(4)),
}


@pytest.mark.parametrize("case", INDEX_COPY_ERRORS.values(), ids=INDEX_COPY_ERRORS.keys())
def test_index_copy_errors_match_cpu(case):
    dim, index, source = case
    check_raises_like_cpu(
        lambda: torch.zeros(4, 3).index_copy(dim, index, source),
        lambda: torch.zeros(4, 3, device=FOO).index_copy(dim, index.to(FOO), source.to(FOO)),
    )


# ---- take --------------------------------------------------------------------------------------------------------

# Positions into 20 elements: the first and last from both ends, and a repeat.
TAKE_INDEX = torch.tensor([[0, -1, 7], [19, -20, 7], [-8, 12, 3]])


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", [*FLOATS, torch.int8, torch.int64, torch.uint8, torch.bool], ids=dtype_id)
def test_take_matches_cpu(dtype, layout):
    """take reads self in its logical (row-major) order whatever its strides; the index may be strided too."""
    x = with_layout(values((4, 5), dtype), layout)
    for index in (TAKE_INDEX, with_layout(TAKE_INDEX, layout), TAKE_INDEX[1]):
        assert_exact(torch.take(on_foo(x), on_foo(index)).cpu(), torch.take(x, index))


# name: (self, index)
TAKE_EDGE_CASES = {
    "zero_dim_self": (torch.tensor(2.5), torch.tensor([0, -1, 0])),
    "zero_dim_index": (randn(3, 4), torch.tensor(-5)),
    "empty_index": (randn(3, 4), torch.tensor([], dtype=torch.int64)),
    "empty_self_and_index": (torch.zeros(0), torch.zeros(0, 2, dtype=torch.int64)),
    "3d_self": (randn(2, 3, 4).permute(2, 0, 1), torch.tensor([23, 0, -24, 5])),
}


@pytest.mark.parametrize("case", TAKE_EDGE_CASES.values(), ids=TAKE_EDGE_CASES.keys())
def test_take_edge_cases_match_cpu(case):
    x, index = case
    outcome = run_like_cpu(lambda: torch.take(x, index), lambda: torch.take(on_foo(x), index.to(FOO)))
    assert outcome is not None, "the CPU raised; the case is wrong"
    assert_exact(outcome[0].cpu(), outcome[1])


# name: (self, index)
TAKE_ERRORS = {
    "int32_index": (randn(4, 5), torch.tensor([1], dtype=torch.int32)),
    "empty_self": (torch.zeros(0), torch.tensor([0])),
}


@pytest.mark.parametrize("case", TAKE_ERRORS.values(), ids=TAKE_ERRORS.keys())
def test_take_errors_match_cpu(case):
    x, index = case
    check_raises_like_cpu(lambda: torch.take(x, index), lambda: torch.take(x.to(FOO), index.to(FOO)))


def test_take_and_put_with_an_index_on_the_cpu_raise_the_device_error():
    x = torch.zeros(3, 4, device=FOO)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device.*take"):
        x.take(torch.tensor([1]))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device.*put_"):
        x.put_(torch.tensor([1]), torch.ones(1, device=FOO))


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_take_gradient_matches_cpu(layout):
    """Repeated positions accumulate their gradients."""
    check_gradients(lambda x, i: torch.take(x, i), [with_layout(randn(4, 5), layout)], (TAKE_INDEX,))


# ---- masked_scatter ----------------------------------------------------------------------------------------------


def random_mask(*shape: int, seed: int = 5) -> Tensor:
    return torch.rand(shape, generator=torch.Generator().manual_seed(seed)) > 0.4


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", [*FLOATS, torch.int8, torch.int64, torch.uint8, torch.bool], ids=dtype_id)
def test_masked_scatter_matches_cpu(dtype, layout):
    """Source elements fill the masked positions in self's logical order, whatever self's and mask's strides; a
    source with more elements than needed (and strided) is read in its own logical order."""
    self_ = with_layout(values((4, 5), dtype), layout)
    mask = with_layout(random_mask(4, 5), layout)
    source = with_layout(values((6, 5), dtype, seed=2), layout)
    expected = self_.masked_scatter(mask, source)
    assert not torch.equal(expected, self_)
    assert_exact(on_foo(self_).masked_scatter(on_foo(mask), on_foo(source)).cpu(), expected)
    in_place = on_foo(self_)
    assert in_place.masked_scatter_(on_foo(mask), on_foo(source)) is in_place
    assert in_place.stride() == self_.stride()
    assert_exact(in_place.cpu(), expected)


# name: (self, mask, source)
MASKED_SCATTER_EDGE_CASES = {
    "mask_broadcast_over_rows": (randn(4, 5), random_mask(5), randn(20, seed=1)),
    "mask_broadcast_over_columns": (randn(4, 5), random_mask(4, 1), randn(2, 10, seed=1)),
    "self_broadcast_to_mask": (randn(5), random_mask(4, 5), randn(30, seed=1)),
    "expanded_mask": (randn(4, 5), random_mask(1, 5).expand(4, 5), randn(20, seed=1)),
    "source_exactly_needed": (randn(2, 3), torch.tensor([[True, False, True], [False, True, True]]), randn(4, seed=1)),
    "nothing_masked_empty_source": (randn(2, 3), torch.zeros(2, 3, dtype=torch.bool), torch.zeros(0)),
    "all_masked": (randn(2, 3), torch.ones(2, 3, dtype=torch.bool), randn(3, 2, seed=1).t()),
    "zero_dim": (torch.tensor(1.5), torch.tensor(True), torch.tensor([7.0, 8.0])),
    "empty": (torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.bool), torch.zeros(0)),
}


@pytest.mark.parametrize("case", MASKED_SCATTER_EDGE_CASES.values(), ids=MASKED_SCATTER_EDGE_CASES.keys())
def test_masked_scatter_edge_cases_match_cpu(case):
    self_, mask, source = case
    outcome = run_like_cpu(
        lambda: self_.masked_scatter(mask, source),
        lambda: on_foo(self_).masked_scatter(on_foo(mask), on_foo(source)),
    )
    assert outcome is not None, "the CPU raised; the case is wrong"
    assert_exact(outcome[0].cpu(), outcome[1])
    if self_.shape == torch.broadcast_shapes(self_.shape, mask.shape):
        in_place = on_foo(self_)
        in_place.masked_scatter_(on_foo(mask), on_foo(source))
        assert_exact(in_place.cpu(), outcome[1])


# name: (in place, self, mask, source)
MASKED_SCATTER_ERRORS = {
    "too_few_source_elements": (False, randn(2, 3), torch.tensor([[True, False, True], [False, True, True]]), randn(3)),
    "too_few_in_place": (True, randn(2, 3), torch.ones(2, 3, dtype=torch.bool), randn(5)),
    "uint8_mask": (False, randn(2, 3), torch.ones(2, 3, dtype=torch.uint8), randn(6)),
    "source_dtype": (False, randn(2, 3), torch.ones(2, 3, dtype=torch.bool), torch.arange(6)),
    "in_place_self_would_broadcast": (True, randn(3), torch.ones(2, 3, dtype=torch.bool), randn(6)),
}


@pytest.mark.filterwarnings("ignore:masked_scatter_ received a mask with dtype torch.uint8")
@pytest.mark.parametrize("case", MASKED_SCATTER_ERRORS.values(), ids=MASKED_SCATTER_ERRORS.keys())
def test_masked_scatter_errors_match_cpu(case):
    in_place, self_, mask, source = case
    op = Tensor.masked_scatter_ if in_place else Tensor.masked_scatter
    check_raises_like_cpu(
        lambda: op(self_.clone(), mask, source), lambda: op(self_.to(FOO), mask.to(FOO), source.to(FOO))
    )


@pytest.mark.parametrize("mask_shape", [(4, 5), (5,)], ids=["full_mask", "broadcast_mask"])
def test_masked_scatter_gradient_matches_cpu(mask_shape):
    """self's gradient is zero where masked; source's is the masked incoming gradient, zero past the used part."""
    mask = random_mask(*mask_shape)
    self_ = with_layout(randn(4, 5), "transposed")
    check_gradients(lambda x, s, m: x.masked_scatter(m, s), [self_, randn(25, seed=1)], (mask,))


# ---- searchsorted and bucketize ----------------------------------------------------------------------------------

SEARCH_DTYPES = [*FLOATS, torch.int64, torch.int32, torch.int8, torch.uint8]
inf, nan = math.inf, math.nan

# Sorted, with repeats (and infinities for floats); values hit, miss, fall before, after and between them.
FLOAT_SEQUENCE = [-inf, -2.5, -1.0, 0.0, 0.0, 0.0, 1.5, 3.0, 3.0, 7.0, inf]
FLOAT_VALUES = [[-inf, -3.0, -2.5, -1.0], [-0.5, 0.0, 0.25, 3.0], [7.0, 8.0, inf, nan]]
INT_SEQUENCE = [0, 0, 1, 3, 3, 3, 7, 9, 100]
INT_VALUES = [[0, 1, 2, 3], [4, 7, 8, 9], [99, 100, 101, 127]]


def search_inputs(dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
    """A 1-d sorted sequence, a (3, k) one whose rows are sorted differently, and (3, 4) values."""
    if dtype.is_floating_point:
        sequence, value_rows = torch.tensor(FLOAT_SEQUENCE), torch.tensor(FLOAT_VALUES)
        rows = torch.stack([sequence, sequence * 0.5, sequence - 1])
    else:
        sequence, value_rows = torch.tensor(INT_SEQUENCE), torch.tensor(INT_VALUES)
        rows = torch.stack([sequence, sequence // 2, sequence + 1])
    return sequence.to(dtype), rows.to(dtype), value_rows.to(dtype)


SEARCHSORTED_KWARGS = {
    "left": {},
    "right": {"right": True},
    "side_left": {"side": "left"},
    "side_right": {"side": "right"},
    "out_int32": {"out_int32": True},
    "right_out_int32": {"right": True, "out_int32": True},
}


@pytest.mark.parametrize("kwargs", SEARCHSORTED_KWARGS.values(), ids=SEARCHSORTED_KWARGS.keys())
@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=dtype_id)
def test_searchsorted_matches_cpu(dtype, kwargs):
    sequence, rows, value_rows = search_inputs(dtype)
    for seq in (sequence, rows):
        expected = torch.searchsorted(seq, value_rows, **kwargs)
        assert_exact(torch.searchsorted(seq.to(FOO), value_rows.to(FOO), **kwargs).cpu(), expected)


@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dtype_id)
def test_searchsorted_of_strided_tensors_matches_cpu(dtype, right):
    sequence, rows, value_rows = search_inputs(dtype)
    for seq, vals in [
        (sequence, value_rows.t().contiguous().t()),  # transposed values
        (sequence[::2], with_layout(value_rows, "sliced")),  # every other element is still sorted
        (rows.t().contiguous().t(), value_rows),  # transposed N-d sequence
        (with_layout(rows, "sliced"), with_layout(value_rows, "transposed")),
    ]:
        expected = torch.searchsorted(seq, vals, right=right)
        assert_exact(torch.searchsorted(on_foo(seq), on_foo(vals), right=right).cpu(), expected)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dtype_id)
def test_searchsorted_with_sorter_matches_cpu(dtype, side):
    sequence, rows, value_rows = search_inputs(dtype)
    for seq in (sequence, rows):
        permutation = torch.randperm(seq.shape[-1], generator=torch.Generator().manual_seed(7))
        unsorted = seq[..., permutation]
        sorter = unsorted.argsort(dim=-1, stable=True)
        expected = torch.searchsorted(unsorted, value_rows, side=side, sorter=sorter)
        assert_exact(expected, torch.searchsorted(seq, value_rows, side=side))
        actual = torch.searchsorted(unsorted.to(FOO), value_rows.to(FOO), side=side, sorter=sorter.to(FOO))
        assert_exact(actual.cpu(), expected)


def test_searchsorted_of_a_scalar_matches_cpu():
    float_sequence, _, _ = search_inputs(torch.float32)
    int_sequence, _, _ = search_inputs(torch.int64)
    for seq, value, kwargs in [
        (float_sequence, 3.0, {}),
        (float_sequence, 3.0, {"right": True}),
        (float_sequence, -inf, {"side": "right", "out_int32": True}),
        (float_sequence, nan, {}),
        (int_sequence, 3, {}),
        (int_sequence, 3, {"right": True, "out_int32": True}),
        (int_sequence, 2.5, {}),
    ]:
        expected = torch.searchsorted(seq, value, **kwargs)
        assert_exact(torch.searchsorted(seq.to(FOO), value, **kwargs).cpu(), expected)


def test_searchsorted_out_matches_cpu():
    sequence, _, value_rows = search_inputs(torch.float32)
    for out_int32, out in [
        (False, torch.empty(0, dtype=torch.int64, device=FOO)),  # resized
        (True, torch.empty(0, dtype=torch.int32, device=FOO)),
        (False, torch.empty(4, 3, dtype=torch.int64, device=FOO).t()),  # written through its strides
    ]:
        expected = torch.searchsorted(sequence, value_rows, out_int32=out_int32)
        returned = torch.searchsorted(sequence.to(FOO), value_rows.to(FOO), out_int32=out_int32, out=out)
        assert returned is out
        assert_exact(out.cpu(), expected)


# name: (sorted sequence, values)
SEARCHSORTED_EDGE_CASES = {
    "empty_values": (torch.tensor([1.0, 2.0]), torch.zeros(0, 3)),
    "empty_sequence": (torch.zeros(0), torch.tensor([1.5, -1.0])),
    "zero_dim_values": (torch.tensor([1.0, 2.0, 3.0]), torch.tensor(2.0)),
    "nan_in_sequence": (torch.tensor([1.0, nan, nan]), torch.tensor([0.5, 1.0, 2.0, nan])),
    "float_sequence_int_values": (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2, 5])),
    "int_sequence_float_values": (torch.tensor([1, 3]), torch.tensor([1.5, 3.0])),
    "single_element": (torch.tensor([[2.0], [4.0]]), torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 1.0]])),
}


@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
@pytest.mark.parametrize("case", SEARCHSORTED_EDGE_CASES.values(), ids=SEARCHSORTED_EDGE_CASES.keys())
def test_searchsorted_edge_cases_match_cpu(case, right):
    seq, vals = case
    outcome = run_like_cpu(
        lambda: torch.searchsorted(seq, vals, right=right),
        lambda: torch.searchsorted(seq.to(FOO), vals.to(FOO), right=right),
    )
    assert outcome is not None, "the CPU raised; the case is wrong"
    assert_exact(outcome[0].cpu(), outcome[1])


# name: (sorted sequence, values, keyword arguments)
SEARCHSORTED_ERRORS = {
    "leading_dims_differ": (torch.zeros(2, 3), torch.zeros(1, 2), {}),
    "zero_dim_sequence": (torch.tensor(1.0), torch.tensor([1.5]), {}),
    "unknown_side": (torch.zeros(3), torch.zeros(2), {"side": "middle"}),
    "sorter_out_of_range": (torch.tensor([5.0, 1.0, 3.0]), torch.tensor([2.0]), {"sorter": torch.tensor([1, 3, 0])}),
    "int32_sorter": (torch.tensor([5.0, 1.0]), torch.tensor([2.0]), {"sorter": torch.tensor([1, 0]).int()}),
    "sorter_shape": (torch.tensor([5.0, 1.0, 3.0]), torch.tensor([2.0]), {"sorter": torch.tensor([1, 0])}),
    "out_dtype": (torch.zeros(3), torch.zeros(2), {"out_int32": True, "out": torch.empty(0, dtype=torch.int64)}),
}


@pytest.mark.parametrize("case", SEARCHSORTED_ERRORS.values(), ids=SEARCHSORTED_ERRORS.keys())
def test_searchsorted_errors_match_cpu(case):
    seq, vals, kwargs = case
    foo_kwargs = {k: v.to(FOO) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
    check_raises_like_cpu(
        lambda: torch.searchsorted(seq, vals, **kwargs),
        lambda: torch.searchsorted(seq.to(FOO), vals.to(FOO), **foo_kwargs),
    )


@pytest.mark.parametrize("out_int32", [False, True], ids=["int64", "int32"])
@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=dtype_id)
def test_bucketize_matches_cpu(dtype, right, out_int32):
    boundaries, _, value_rows = search_inputs(dtype)
    for vals in (value_rows, with_layout(value_rows, "transposed"), value_rows[1]):
        expected = torch.bucketize(vals, boundaries, right=right, out_int32=out_int32)
        actual = torch.bucketize(on_foo(vals), boundaries.to(FOO), right=right, out_int32=out_int32)
        assert_exact(actual.cpu(), expected)
    expected = torch.bucketize(value_rows, boundaries[::2], right=right, out_int32=out_int32)
    actual = torch.bucketize(value_rows.to(FOO), on_foo(boundaries[::2]), right=right, out_int32=out_int32)
    assert_exact(actual.cpu(), expected)


def test_bucketize_of_a_scalar_matches_cpu():
    boundaries, _, _ = search_inputs(torch.float32)
    for value, kwargs in [(3.0, {}), (3.0, {"right": True}), (0.1, {"out_int32": True}), (inf, {})]:
        expected = torch.bucketize(value, boundaries, **kwargs)
        assert_exact(torch.bucketize(value, boundaries.to(FOO), **kwargs).cpu(), expected)


def test_bucketize_with_2d_boundaries_raises_like_cpu():
    check_raises_like_cpu(
        lambda: torch.bucketize(torch.zeros(2), torch.zeros(2, 3)),
        lambda: torch.bucketize(torch.zeros(2, device=FOO), torch.zeros(2, 3, device=FOO)),
    )


# ---- embedding with max_norm (embedding_renorm_) -----------------------------------------------------------------

EMBEDDING_MAX_NORM = 1.0
# Indices into 7 rows with repeats; row 3 is never looked up (and keeps its norm above max_norm).
MAX_NORM_INDICES = torch.tensor([[1, 4, 1, 0], [6, 2, 2, 5]])
MAX_NORM_LOW_PRECISION = {torch.float16: {"rtol": 1e-2, "atol": 1e-2}, torch.bfloat16: {"rtol": 2e-2, "atol": 2e-2}}


def embedding_weight(dtype: torch.dtype) -> Tensor:
    """7 rows of 5 whose norms (of any type) lie below max_norm for rows 0 and 6, above it for the others."""
    scales = torch.tensor([0.05, 1.5, 2.0, 2.0, 1.0, 3.0, 0.04], dtype=torch.float64)
    return (randn(7, 5, dtype=torch.float64, seed=3) * scales[:, None]).to(dtype)


@pytest.mark.parametrize("padding_idx", [None, 2], ids=["no_padding", "padding_2"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, inf], ids=["norm_2", "norm_1", "norm_inf"])
@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
def test_embedding_with_max_norm_matches_cpu(dtype, norm_type, padding_idx):
    """The looked-up rows of the weight are renormalised in place as on the CPU (the others stay as they were);
    the output and the weight's gradient (zero in the padding row) match too."""

    def lookup(weight: Tensor, indices: Tensor) -> Tensor:
        return F.embedding(indices, weight, padding_idx=padding_idx, max_norm=EMBEDDING_MAX_NORM, norm_type=norm_type)

    original = embedding_weight(dtype)
    grad = randn(2, 4, 5, dtype=dtype, seed=9)
    cpu_weight, foo_weight = original.clone().requires_grad_(), original.to(FOO).requires_grad_()
    expected = lookup(cpu_weight, MAX_NORM_INDICES)
    actual = lookup(foo_weight, MAX_NORM_INDICES.to(FOO))
    expected.backward(grad)
    actual.backward(grad.to(FOO))
    assert not torch.equal(cpu_weight.detach(), original), "the CPU renormalised nothing; the case is wrong"
    assert_close_to_cpu(actual.detach(), expected.detach(), MAX_NORM_LOW_PRECISION)
    assert_close_to_cpu(foo_weight.detach(), cpu_weight.detach(), MAX_NORM_LOW_PRECISION)
    assert_close_to_cpu(foo_weight.grad, cpu_weight.grad, MAX_NORM_LOW_PRECISION)
    assert_exact(foo_weight.detach()[3].cpu(), original[3])


# name: (weight layout, indices, max_norm, norm_type)
EMBEDDING_RENORM_CASES = {
    "repeated_indices": ("contiguous", torch.tensor([3, 3, 1, 5, 1]), 1.0, 2.0),
    "int32_indices": ("contiguous", torch.tensor([0, 6, 2], dtype=torch.int32), 1.5, 1.0),
    "2d_indices": ("contiguous", torch.tensor([[1, 2], [2, 4]]), 0.5, 2.0),
    "transposed_weight": ("transposed", torch.tensor([1, 4, 6]), 1.0, 2.0),
    "sliced_weight": ("sliced", torch.tensor([5, 1]), 1.0, 1.0),
    "norm_inf": ("contiguous", torch.tensor([1, 2, 5]), 1.0, inf),
    "norm_3": ("contiguous", torch.tensor([1, 2, 5, 0]), 1.0, 3.0),
    "every_row_below": ("contiguous", torch.tensor([1, 2]), 100.0, 2.0),
    "no_indices": ("contiguous", torch.tensor([], dtype=torch.int64), 1.0, 2.0),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("case", EMBEDDING_RENORM_CASES.values(), ids=EMBEDDING_RENORM_CASES.keys())
def test_embedding_renorm_matches_cpu(case, dtype):
    layout, indices, max_norm, norm_type = case
    cpu_weight = with_layout(embedding_weight(dtype), layout)
    foo_weight = on_foo(cpu_weight)
    torch.embedding_renorm_(cpu_weight, indices, max_norm, norm_type)
    assert torch.embedding_renorm_(foo_weight, indices.to(FOO), max_norm, norm_type) is foo_weight
    assert foo_weight.stride() == cpu_weight.stride()
    assert_close_to_cpu(foo_weight, cpu_weight)
    untouched = [row for row in range(7) if row not in indices.flatten().tolist()]
    assert_exact(foo_weight[untouched].cpu(), embedding_weight(dtype)[untouched])


def test_embedding_renorm_out_of_range_index_raises_index_error_at_the_next_synchronisation():
    indices = torch.tensor([1, 7])
    with pytest.raises(IndexError, match="out of range"):
        torch.embedding_renorm_(embedding_weight(torch.float32), indices, 1.0, 2.0)
    torch.embedding_renorm_(embedding_weight(torch.float32).to(FOO), indices.to(FOO), 1.0, 2.0)
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.foo.synchronize()


# ---- unique, bincount and histc -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        torch.tensor([3.0, math.nan, 1.0, 3.0, math.nan]),
        torch.randint(0, 5, (4, 6), generator=torch.Generator().manual_seed(0)),
        torch.tensor([True, False, True]),
        torch.tensor([], dtype=torch.int64),
    ],
    ids=["float_nan", "int64_2d", "bool", "empty"],
)
def test_unique_matches_cpu(values):
    for kwargs in [
        {},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_inverse": True, "return_counts": True},
    ]:
        expected, actual = torch.unique(values, **kwargs), torch.unique(values.to(FOO), **kwargs)
        for e, a in zip(
            expected if isinstance(expected, tuple) else (expected,), actual if isinstance(actual, tuple) else (actual,)
        ):
            torch.testing.assert_close(a.cpu(), e, equal_nan=True, rtol=0, atol=0)


def test_bincount_matches_cpu():
    x, w = torch.tensor([0, 1, 1, 4, 4, 4]), torch.tensor([0.5, 1.0, 2.0, 1.0, 1.0, 3.0])
    assert_exact(torch.bincount(x.to(FOO)).cpu(), torch.bincount(x))
    assert_exact(torch.bincount(x.to(FOO), w.to(FOO), minlength=9).cpu(), torch.bincount(x, w, minlength=9))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([-1], device=FOO))


HISTC_VALUES = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 3.5, 4.0, 5.0]
# name: (values, keyword arguments of histc)
HISTC_CASES = {
    "range": (HISTC_VALUES, {"bins": 4, "min": 0, "max": 4}),  # values outside ignored, the max in the last bin
    "bin_edges": ([0.0, 0.25, 0.5, 0.75, 1.0, 0.2499, 0.7501, 1.0001, -0.0001], {"bins": 4, "min": 0, "max": 1}),
    "data_range": (HISTC_VALUES, {"bins": 3}),  # min == max == 0: the data's min and max
    "min_equals_max": (HISTC_VALUES, {"bins": 5, "min": 2, "max": 2}),  # the range [1, 3]
    "constant_data": ([2.0] * 4, {"bins": 3}),  # the data's min == max: the range [1, 3]
    "nan_ignored": ([math.nan, 1.0, 2.0, math.nan], {"bins": 3, "min": 0, "max": 3}),
    "many": (None, {"bins": 10, "min": -2, "max": 2.5}),
    "many_data_range": (None, {"bins": 7}),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("case", HISTC_CASES)
def test_histc_matches_cpu(case, dtype):
    values, kwargs = HISTC_CASES[case]
    x = randn(40, 50, dtype=dtype) if values is None else torch.tensor(values, dtype=dtype)
    assert_exact(torch.histc(x.to(FOO), **kwargs).cpu(), torch.histc(x, **kwargs))


# name: (values, keyword arguments of histc)
INTEGER_HISTC_CASES = {
    "experts": ([3, 0, 1, 1, 3, 3, 2, 0], {"bins": 4, "min": 0, "max": 3}),  # transformers' MoE expert counts
    "outside_and_negative": ([-7, -3, -1, 0, 2, 5, 9, 12, 100], {"bins": 5, "min": -3, "max": 9}),
    "data_range": ([4, 9, 5, 5, 17, 11], {"bins": 4}),
    "min_equals_max": ([1, 2, 3, 4], {"bins": 3, "min": 2, "max": 2}),  # the range [1, 3]
    "fractional_limits": ([0, 1, 2, 3, 4], {"bins": 3, "min": 0.7, "max": 3.9}),  # truncated: [0, 3]
    "uneven_bins": (list(range(-20, 40)), {"bins": 7, "min": -13, "max": 31}),
}


@pytest.mark.parametrize(
    "case, dtype",
    [
        (case, dtype)
        for case, (_, kwargs) in INTEGER_HISTC_CASES.items()
        for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
        if not (dtype == torch.uint8 and kwargs.get("min", 0) < 0)  # a negative limit wraps around in uint8
    ],
    ids=str,
)
def test_histc_of_integers_as_cuda(case, dtype):
    """CUDA counts integer inputs (the CPU raises): min and max truncated to integers, element v in bin
    (v - min) * bins // (max - min), the counts in the input's dtype."""
    values, kwargs = INTEGER_HISTC_CASES[case]
    x = torch.tensor([v for v in values if torch.iinfo(dtype).min <= v <= torch.iinfo(dtype).max], dtype=dtype)
    limits = {key: int(kwargs[key]) for key in ("min", "max") if key in kwargs}
    expected = torch.histc(x.double(), **{**kwargs, **limits}).to(dtype)
    assert_exact(torch.histc(x.to(FOO), **kwargs).cpu(), expected)


# name: (values, keyword arguments of histc)
HISTC_ERROR_CASES = {
    "bool": (torch.tensor([True, False]), {"bins": 3}),
    "nan_in_data_range": (torch.tensor([math.nan, 1.0]), {"bins": 3}),
    "max_below_min": (torch.tensor([1.0, 2.0]), {"bins": 3, "min": 2, "max": 1}),
    "no_bins": (torch.tensor([1.0, 2.0]), {"bins": 0}),
}


@pytest.mark.parametrize("case", HISTC_ERROR_CASES)
def test_histc_errors_match_cpu(case):
    """Bool inputs raise NotImplementedError, a bad range RuntimeError, like the CPU."""
    x, kwargs = HISTC_ERROR_CASES[case]
    assert run_like_cpu(lambda: torch.histc(x, **kwargs), lambda: torch.histc(x.to(FOO), **kwargs)) is None


# ---- unique along a dim ------------------------------------------------------------------------------------------


def repeated_slices(shape: tuple[int, ...], dim: int, dtype: torch.dtype) -> Tensor:
    """A tensor of `shape` but for `dim`, along which it has 7 slices: 4 random ones (values in [-2, 2]) repeated
    out of order."""
    base_shape = list(shape)
    base_shape[dim] = 4
    base = torch.randint(-2, 3, base_shape, generator=torch.Generator().manual_seed(4))
    return base.index_select(dim, torch.tensor([2, 0, 2, 3, 1, 0, 3])).to(dtype)


UNIQUE_DIM_CASES = {
    "2d_dim0": ((7, 3), 0),
    "2d_dim1": ((4, 7), 1),
    "3d_dim0": ((7, 2, 3), 0),
    "3d_dim1": ((2, 7, 3), 1),
    "3d_dim_last": ((3, 2, 7), -1),
}
UNIQUE_RETURNS = [
    {},
    {"return_inverse": True},
    {"return_counts": True},
    {"return_inverse": True, "return_counts": True},
]


def assert_unique_like_cpu(x: Tensor, x_foo: Tensor, dim: int) -> None:
    for kwargs in UNIQUE_RETURNS:
        expected = torch.unique(x, sorted=True, dim=dim, **kwargs)
        actual = torch.unique(x_foo, sorted=True, dim=dim, **kwargs)
        expected, actual = (t if isinstance(t, tuple) else (t,) for t in (expected, actual))
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert a.device.type == "foo"
            torch.testing.assert_close(a.cpu(), e, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.float32], ids=dtype_id)
@pytest.mark.parametrize("case", UNIQUE_DIM_CASES.values(), ids=UNIQUE_DIM_CASES.keys())
def test_unique_dim_matches_cpu(case, dtype, layout):
    shape, dim = case
    x = with_layout(repeated_slices(shape, dim, dtype), layout)
    assert torch.unique(x, dim=dim).shape[dim] < x.shape[dim], "no repeats; the case is wrong"
    assert_unique_like_cpu(x, on_foo(x), dim)


def test_unique_dim_of_nan_and_signed_zero_rows_matches_cpu():
    """Rows with NaN are all distinct (NaN != NaN) and -0.0 equals 0.0, as on the CPU. Which of two equal NaN rows
    comes first is the sort's choice, so the inverse is checked by what it maps back to."""
    x = torch.tensor([[1.0, nan], [0.0, 2.0], [1.0, nan], [-0.0, 2.0], [-1.0, 3.0], [-1.0, 3.0]])
    expected_values, expected_counts = torch.unique(x, sorted=True, dim=0, return_counts=True)
    values, inverse, counts = torch.unique(x.to(FOO), sorted=True, dim=0, return_inverse=True, return_counts=True)
    torch.testing.assert_close(values.cpu(), expected_values, rtol=0, atol=0, equal_nan=True)
    assert_exact(counts.cpu(), expected_counts)
    torch.testing.assert_close(values[inverse].cpu(), x, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64], ids=dtype_id)
def test_unique_dim_keeps_every_nan_row_distinct(dtype):
    # NaN in the leading column too, where CPU's comparator (not a strict weak order with NaN) leaves
    # its order unspecified: what must hold is that no two rows holding NaN are merged.
    x = torch.tensor([[nan, 1.0], [0.0, 2.0], [nan, 1.0], [nan, nan], [0.0, 2.0], [nan, nan], [2.0, nan]], dtype=dtype)
    values, inverse, counts = torch.unique(x.to(FOO), dim=0, return_inverse=True, return_counts=True)
    nan_rows = torch.isnan(x).any(1)
    assert values.shape[0] == int(nan_rows.sum()) + 1  # every NaN row, and [0, 2] once
    assert len(set(inverse[nan_rows.to(FOO)].tolist())) == int(nan_rows.sum())
    assert sorted(counts.tolist()) == [1] * int(nan_rows.sum()) + [2]
    torch.testing.assert_close(values[inverse].cpu(), x, rtol=0, atol=0, equal_nan=True)


def test_unique_dim_of_empty_dimension_matches_cpu():
    x = torch.zeros(0, 3, dtype=torch.int64)
    assert_unique_like_cpu(x, x.to(FOO), 0)


@pytest.mark.parametrize(
    "shape, dim",
    [((3, 0), 0), ((0, 3), 1), ((), 0), ((2, 3), 2)],
    ids=["other_dim_empty", "selected_dim_nonempty_other_empty", "zero_dim", "dim_out_of_range"],
)
def test_unique_dim_errors_match_cpu(shape, dim):
    x = torch.zeros(shape, dtype=torch.int64)
    check_raises_like_cpu(lambda: torch.unique(x, dim=dim), lambda: torch.unique(x.to(FOO), dim=dim))


# ---- deterministic mode ---------------------------------------------------------------------------------


@pytest.fixture
def deterministic():
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(False)


def repeated_positions(n: int, size: int, seed: int = 0) -> Tensor:
    return torch.randint(0, size, (n,), generator=torch.Generator().manual_seed(seed))


DETERMINISTIC_OPS = {
    "index_add": lambda x, idx, src: x.index_add(0, idx, src, alpha=0.5),
    "index_copy": lambda x, idx, src: x.index_copy(0, idx, src),
    "index_put_accumulate": lambda x, idx, src: x.index_put((idx,), src, accumulate=True),
    "index_put": lambda x, idx, src: x.index_put((idx,), src),
    "scatter_add": lambda x, idx, src: x.scatter_add(0, idx[:, None].expand_as(src), src),
    "scatter": lambda x, idx, src: x.scatter(0, idx[:, None].expand_as(src), src),
    "scatter_reduce_sum": lambda x, idx, src: x.scatter_reduce(0, idx[:, None].expand_as(src), src, "sum"),
    "scatter_reduce_mean": lambda x, idx, src: x.scatter_reduce(0, idx[:, None].expand_as(src), src, "mean"),
    "scatter_reduce_prod": lambda x, idx, src: x.scatter_reduce(0, idx[:, None].expand_as(src), src, "prod"),
    "put_accumulate": lambda x, idx, src: x.put(idx, src[:, 0], accumulate=True),
}


@pytest.mark.usefixtures("deterministic")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("name", DETERMINISTIC_OPS)
def test_deterministic_mode_gives_the_same_bits_every_run(name, dtype):
    # 24,000 values into 40 rows: every row takes hundreds, so an atomic order would show.
    op = DETERMINISTIC_OPS[name]
    x, src = randn(40, 3, dtype=dtype), randn(24_000, 3, dtype=dtype, seed=1)
    if name == "scatter_reduce_prod":
        src = (randn(24_000, 3, seed=1) * 0.01 + 1).to(dtype)  # products of ~600 values near 1
    idx = repeated_positions(24_000, 40)
    results = [op(x.to(FOO), idx.to(FOO), src.to(FOO)).cpu() for _ in range(3)]
    for r in results[1:]:
        assert_exact(r, results[0])
    if name in ("index_copy", "index_put", "scatter"):
        assert_exact(results[0], op(x, idx, src))  # the last value wins, as on the CPU
    else:
        # foo sums 16-bit floats in float32 (CPU rounds every partial sum): compare with float64's answer
        exact = op(x.double(), idx, src.double()).to(dtype)
        torch.testing.assert_close(results[0], exact, rtol=1e-4 if dtype == torch.float32 else 1e-2, atol=1e-3)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=dtype_id)
def test_index_put_accumulate_of_16_bit_floats_sums_in_float32(dtype):
    # 400,000 values into 2,000 rows: rounding every partial sum of ~200 values to 16 bits drifts by
    # several units in the last place; one rounding of the float32 sum stays within one.
    idx = repeated_positions(400_000, 2_000)
    vals = randn(400_000, 8, dtype=dtype, seed=2) + 1
    actual = torch.zeros(2_000, 8, dtype=dtype, device=FOO).index_put_((idx.to(FOO),), vals.to(FOO), accumulate=True)
    exact = torch.zeros(2_000, 8, dtype=torch.float64).index_put_((idx,), vals.double(), accumulate=True)
    ulp = exact.abs() * (2**-8 if dtype == torch.bfloat16 else 2**-11)
    assert ((actual.cpu().double() - exact).abs() <= ulp).all()


# ---- index_put_ and index_fill_ arguments -------------------------------------------------------------------

INDEX_PUT_ERRORS = {
    "values_on_cpu": lambda d: torch.zeros(3, device=d).index_put_((torch.tensor([1], device=d),), torch.ones(1)),
    "values_of_another_dtype": lambda d: torch.zeros(2, 3, dtype=torch.float64, device=d).__setitem__(
        (slice(None), [1]), torch.ones(2, 1, dtype=torch.int32, device=d)
    ),
    "values_not_broadcastable": lambda d: torch.zeros(4, 3, device=d).index_put_(
        (torch.tensor([1, 2], device=d),), torch.ones(3, 2, device=d)
    ),
    "accumulate_values_on_cpu": lambda d: torch.zeros(3, device=d).index_put_(
        (torch.tensor([1], device=d),), torch.ones(1), accumulate=True
    ),
}


@pytest.mark.parametrize("case", INDEX_PUT_ERRORS.values(), ids=INDEX_PUT_ERRORS.keys())
def test_index_put_rejects_what_cuda_rejects(case):
    with pytest.raises(RuntimeError):
        case(FOO)


def test_index_put_takes_a_0_dim_cpu_value_like_cuda():
    x = torch.zeros(3, device=FOO)
    x.index_put_((torch.tensor([1], device=FOO),), torch.tensor(2.0))
    assert x.cpu().tolist() == [0.0, 2.0, 0.0]


INDEX_FILLS = {
    "rows": lambda x, idx: x.index_fill(0, idx, -1.5),
    "columns": lambda x, idx: x.index_fill(1, idx.clamp(max=2), 7),
    "negative": lambda x, idx: x.index_fill(0, idx - 5, 2),
    "tensor_value": lambda x, idx: x.index_fill(-1, idx.clamp(max=2), torch.tensor(3.0)),
    "in_place_transposed": lambda x, idx: x.t().index_fill_(1, idx, 9),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool], ids=dtype_id)
@pytest.mark.parametrize("index_on_cpu", [False, True], ids=["foo_index", "cpu_index"])
@pytest.mark.parametrize("case", INDEX_FILLS.values(), ids=INDEX_FILLS.keys())
def test_index_fill_matches_cpu(case, index_on_cpu, dtype):
    x, idx = values((5, 3), dtype), torch.tensor([4, 0, 4, 2])
    assert_exact(case(x.to(FOO), idx if index_on_cpu else idx.to(FOO)).cpu(), case(x, idx))


INDEX_FILL_ERRORS = {
    "int32_index": lambda d: torch.zeros(3, device=d).index_fill_(0, torch.tensor([1], dtype=torch.int32, device=d), 1),
    "2d_index": lambda d: torch.zeros(3, device=d).index_fill_(0, torch.tensor([[1]], device=d), 1),
    "1d_value": lambda d: torch.zeros(3, device=d).index_fill_(0, torch.tensor([1], device=d), torch.ones(1)),
}


@pytest.mark.parametrize("case", INDEX_FILL_ERRORS.values(), ids=INDEX_FILL_ERRORS.keys())
def test_index_fill_errors_match_cpu(case):
    assert run_like_cpu(lambda: case("cpu"), lambda: case(FOO), same_message=True) is None


def test_a_cpu_out_tensor_raises_the_same_device_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.nonzero(torch.ones(3, device=FOO), out=torch.empty(0, dtype=torch.long))


@pytest.mark.usefixtures("deterministic")
def test_deterministic_bilinear_upsampling_gradient_is_reproducible():
    # In deterministic mode PyTorch decomposes bilinear interpolation; its gradient sums through index_put_.
    x = randn(2, 3, 17, 13)
    grads = [
        forward_backward(
            lambda t: F.interpolate(t, scale_factor=2.5, mode="bilinear"), [x.to(FOO)], randn(2, 3, 42, 32, seed=1)
        )[1][0].cpu()
        for _ in range(2)
    ]
    assert_exact(grads[1], grads[0])
    expected = forward_backward(
        lambda t: F.interpolate(t, scale_factor=2.5, mode="bilinear"), [x], randn(2, 3, 42, 32, seed=1)
    )[1][0]
    torch.testing.assert_close(grads[0], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.usefixtures("deterministic")
def test_deterministic_mode_raises_where_cuda_has_no_deterministic_kernel():
    grad = torch.ones(1, 1, 8, 8, device=FOO)
    with pytest.raises(RuntimeError, match="does not have a deterministic implementation"):
        torch.ops.aten.upsample_bilinear2d_backward(grad, [8, 8], [1, 1, 4, 4], False)


EMPTY_INDEX_CASES = {
    "index_size_0_dim": lambda d: torch.zeros(0, 2, device=d)[torch.tensor([0], device=d)],
    "index_put_size_0_dim": lambda d: torch.zeros(0, device=d).index_put_(
        (torch.tensor(0, device=d),), torch.tensor(1.0, device=d)
    ),
    "index_put_accumulate_size_0_dim": lambda d: torch.zeros(0, device=d).index_put_(
        (torch.tensor([0], device=d),), torch.tensor(1.0, device=d), accumulate=True
    ),
    "index_no_indices": lambda d: torch.ops.aten.index(torch.zeros(3, device=d), []),
    "index_put_accumulate_no_indices": lambda d: torch.zeros(3, device=d).index_put_(
        (), torch.tensor(1.0, device=d), accumulate=True
    ),
    "index_select_size_0_dim": lambda d: torch.zeros(0, device=d).index_select(0, torch.tensor([0], device=d)),
}


@pytest.mark.parametrize("case", EMPTY_INDEX_CASES.values(), ids=EMPTY_INDEX_CASES.keys())
def test_empty_index_corner_cases_raise_like_cpu(case):
    assert run_like_cpu(lambda: case("cpu"), lambda: case(FOO)) is None


ALIASED_OUTS = {
    "index_select": lambda x, i: torch.index_select(x, 0, i, out=x),
    "index_select_into_the_index": lambda x, i: torch.index_select(i, 0, i, out=i),
    "take": lambda x, i: torch.take(x, i, out=x),
    "gather": lambda x, i: torch.gather(x, 0, i, out=x),
    "masked_select": lambda x, i: torch.masked_select(x, i > 2, out=x),
    "kthvalue": lambda x, i: torch.kthvalue(x, 2, 0, out=(x[:1].squeeze(0), torch.empty((), dtype=torch.long))),
    "internal_overlap": lambda x, i: torch.index_select(x, 0, i[:2], out=torch.empty(1).to(x.device).expand(2)),
}


@pytest.mark.parametrize("call", ALIASED_OUTS.values(), ids=ALIASED_OUTS.keys())
def test_an_out_sharing_memory_with_an_input_is_rejected_like_cpu(call):
    """A kernel reading what it writes would give values that depend on the order of its work-items."""

    def run(device: str) -> None:
        call(torch.arange(6.0, device=device), torch.tensor([5, 4, 3, 2, 1, 0], device=device))

    assert run_like_cpu(lambda: run("cpu"), lambda: run(FOO)) is None
