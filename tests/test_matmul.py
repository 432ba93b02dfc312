"""Matrix products against the CPU: one table (mm, addmm, bmm, baddbmm, addbmm, mv, addmv, dot, vdot, outer,
linear, matmul with broadcasting, einsum, tensordot) over sizes with 1, primes, 0 and a long K, transposed,
sliced and expanded operands, and every float dtype; then linear's backward, beta=0 with NaN, out=, in place,
and operands on different devices. No test may fall back to the CPU.
"""

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F
from conftest import FLOAT_DTYPES, FOO, Layout, assert_close_to_cpu, dtype_id, forward_backward, run_like_cpu

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor
Shape = tuple[int, ...]

# NOTE: results reach ~50 (K = 2000 products of normal values): the absolute tolerances are for elements
# near 0, whose error comes from the larger partial sums. foo accumulates float16/bfloat16 in float32 and
# rounds once; the CPU's addbmm rounds each batch's product to 16 bits before adding them (differences of
# 0.007 in float16 and 0.03 in bfloat16 seen).
TOLERANCES = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-4},
    torch.float16: {"rtol": 2e-3, "atol": 2e-2},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-1},
}
BATCH = 3


@dataclass(frozen=True)
class Product:
    """`fn(a, b, ...)` with operands of `shapes(m, k, n)`: the two factors of the product first, then any
    bias, so that a layout mix names the factors' layouts."""

    fn: Callable[..., Tensor]
    shapes: Callable[[int, int, int], list[Shape]]


PRODUCTS = {
    "mm": Product(torch.mm, lambda m, k, n: [(m, k), (k, n)]),
    "addmm": Product(
        lambda a, b, c: torch.addmm(c, a, b, beta=0.5, alpha=2.0), lambda m, k, n: [(m, k), (k, n), (m, n)]
    ),
    "addmm_bias_1d": Product(lambda a, b, c: torch.addmm(c, a, b), lambda m, k, n: [(m, k), (k, n), (n,)]),
    "bmm": Product(torch.bmm, lambda m, k, n: [(BATCH, m, k), (BATCH, k, n)]),
    "baddbmm": Product(
        lambda a, b, c: torch.baddbmm(c, a, b, beta=-1.0, alpha=0.5),
        lambda m, k, n: [(BATCH, m, k), (BATCH, k, n), (BATCH, m, n)],
    ),
    "baddbmm_bias_broadcast": Product(
        lambda a, b, c: torch.baddbmm(c, a, b), lambda m, k, n: [(BATCH, m, k), (BATCH, k, n), (m, 1)]
    ),
    "addbmm": Product(
        lambda a, b, c: torch.addbmm(c, a, b, beta=2.0, alpha=0.25),
        lambda m, k, n: [(BATCH, m, k), (BATCH, k, n), (m, n)],
    ),
    "mv": Product(torch.mv, lambda m, k, n: [(m, k), (k,)]),
    "addmv": Product(lambda a, v, c: torch.addmv(c, a, v, beta=2.0, alpha=-1.0), lambda m, k, n: [(m, k), (k,), (m,)]),
    "dot": Product(torch.dot, lambda m, k, n: [(k,), (k,)]),
    "vdot": Product(torch.vdot, lambda m, k, n: [(k,), (k,)]),
    "outer": Product(torch.outer, lambda m, k, n: [(m,), (n,)]),
    "linear": Product(lambda x, w, b: F.linear(x, w, b), lambda m, k, n: [(BATCH, m, k), (n, k), (n,)]),
    "linear_no_bias": Product(F.linear, lambda m, k, n: [(m, k), (n, k)]),
    "matmul_batch_broadcast": Product(torch.matmul, lambda m, k, n: [(3, 1, m, k), (4, k, n)]),
    "matmul_vector_matrix": Product(torch.matmul, lambda m, k, n: [(k,), (k, n)]),
    "matmul_matrix_vector": Product(torch.matmul, lambda m, k, n: [(m, k), (k,)]),
    "matmul_batch_vector": Product(torch.matmul, lambda m, k, n: [(BATCH, m, k), (k,)]),
    "einsum_bij_bjk": Product(
        lambda a, b: torch.einsum("bij,bjk->bik", a, b), lambda m, k, n: [(BATCH, m, k), (BATCH, k, n)]
    ),
    "einsum_ij_jk": Product(lambda a, b: torch.einsum("ij,jk", a, b), lambda m, k, n: [(m, k), (k, n)]),
    "einsum_i_i": Product(lambda a, b: torch.einsum("i,i->", a, b), lambda m, k, n: [(k,), (k,)]),
    "tensordot_1": Product(lambda a, b: torch.tensordot(a, b, dims=1), lambda m, k, n: [(m, k), (k, n)]),
    "tensordot_2": Product(
        lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), lambda m, k, n: [(m, 2, k), (2, k, n)]
    ),
}

# (M, K, N): ones, primes, each of them 0 (an empty output, or K = 0: beta * bias alone), and a long K.
SIZES = [(1, 1, 1), (7, 13, 31), (31, 7, 13), (0, 5, 3), (4, 0, 3), (4, 5, 0), (3, 2000, 5)]


def operand_layout(shape: Shape, layout: str) -> Layout:
    """The dense base and view giving an operand of `shape` in `layout`: "transposed" (the last two dims
    swapped through .transpose/.mT), "sliced" (every other element of a last dim twice as long), "expanded"
    (broadcast along the first dim: the batch dim of a batch of matrices), or "contiguous"."""
    if layout == "transposed" and len(shape) >= 2:
        return Layout((*shape[:-2], shape[-1], shape[-2]), lambda t: t.transpose(-2, -1))
    if layout == "sliced" and shape:
        return Layout((*shape[:-1], 2 * shape[-1]), lambda t: t[..., ::2])
    if layout == "expanded" and shape:
        return Layout((1, *shape[1:]), lambda t: t.expand(shape))
    return Layout(shape, lambda t: t)


# The layout of each operand, cycling: mixes of transposed factors reach the four GEMM variants.
LAYOUT_MIXES = {
    "contiguous": ["contiguous"],
    "transposed": ["transposed"],
    "first_transposed": ["transposed", "contiguous"],
    "second_transposed": ["contiguous", "transposed"],
    "sliced": ["sliced"],
    "expanded": ["expanded"],
}


def normal(shape: Shape, dtype: torch.dtype, seed: int) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def make_operands(shapes: list[Shape], mix: list[str], dtype: torch.dtype) -> tuple[list[Tensor], list[Tensor]]:
    """The operands on the CPU and the same values in the same layouts on foo."""
    cpu, foo = [], []
    for i, shape in enumerate(shapes):
        base_shape, view = operand_layout(shape, mix[i % len(mix)])
        base = normal(base_shape, dtype, seed=i)
        cpu.append(view(base))
        foo.append(view(base.to(FOO)))
    return cpu, foo


@pytest.mark.parametrize("mix", LAYOUT_MIXES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", PRODUCTS)
def test_product_matches_cpu(name, dtype, mix):
    product = PRODUCTS[name]
    failures = []
    for m, k, n in SIZES:
        cpu, foo = make_operands(product.shapes(m, k, n), LAYOUT_MIXES[mix], dtype)
        try:
            outcome = run_like_cpu(lambda: product.fn(*cpu), lambda: product.fn(*foo))  # noqa: B023 (called at once)
            assert outcome is not None, "the CPU raised"
            assert_close_to_cpu(*outcome, TOLERANCES)
        except Exception as e:  # noqa: BLE001 (every size runs; the test reports them all)
            failures.append(f"M={m} K={k} N={n}: {type(e).__name__}: {e}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("mix", ["contiguous", "first_transposed", "sliced"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["linear", "linear_no_bias"])
def test_linear_backward_matches_cpu(name, dtype, mix):
    """The gradients of x, W and b (through mm/addmm on transposed operands and a sum over rows for b)."""
    product = PRODUCTS[name]
    failures = []
    for m, k, n in SIZES:
        cpu, foo = make_operands(product.shapes(m, k, n), LAYOUT_MIXES[mix], dtype)
        grad = normal(product.fn(*cpu).shape, dtype, seed=10)
        try:
            expected = forward_backward(product.fn, cpu, grad)
            assert_close_to_cpu(forward_backward(product.fn, foo, grad), expected, TOLERANCES)
        except Exception as e:  # noqa: BLE001
            failures.append(f"M={m} K={k} N={n}: {type(e).__name__}: {e}")
    assert not failures, "\n\n".join(failures)


# Each gets (a, b, a NaN-filled bias); beta = 0 means the bias is ignored, NaN included.
BETA_ZERO_CASES = {
    "addmm": (lambda a, b, c: torch.addmm(c, a, b, beta=0, alpha=1.5), [(5, 7), (7, 3), (5, 3)]),
    "addmm_bias_1d": (lambda a, b, c: torch.addmm(c, a, b, beta=0), [(5, 7), (7, 3), (3,)]),
    "addmm_k0": (lambda a, b, c: torch.addmm(c, a, b, beta=0), [(5, 0), (0, 3), (5, 3)]),
    "baddbmm": (lambda a, b, c: torch.baddbmm(c, a, b, beta=0), [(2, 5, 7), (2, 7, 3), (2, 5, 3)]),
    # A bias per row, as a convolution's per output channel, with rows wide enough for vector stores.
    "baddbmm_row_bias": (lambda a, b, c: torch.baddbmm(c, a, b, beta=0), [(2, 5, 7), (2, 7, 70), (5, 1)]),
    "addbmm": (lambda a, b, c: torch.addbmm(c, a, b, beta=0), [(2, 5, 7), (2, 7, 3), (5, 3)]),
    "addmv": (lambda a, v, c: torch.addmv(c, a, v, beta=0, alpha=2), [(5, 7), (7,), (5,)]),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", BETA_ZERO_CASES.values(), ids=BETA_ZERO_CASES.keys())
def test_beta_zero_ignores_a_nan_bias(case, dtype):
    fn, shapes = case
    a, b = normal(shapes[0], dtype, seed=0), normal(shapes[1], dtype, seed=1)
    c = torch.full(shapes[2], math.nan, dtype=dtype)
    result = fn(a.to(FOO), b.to(FOO), c.to(FOO))
    assert not result.isnan().any().item()
    assert_close_to_cpu(result, fn(a, b, c), TOLERANCES)


# name: (fn with out=, operand shapes)
OUT_CASES = {
    "mm": (torch.mm, [(5, 7), (7, 3)]),
    "addmm": (lambda a, b, c, out: torch.addmm(c, a, b, beta=0.5, out=out), [(5, 7), (7, 3), (5, 3)]),
    "bmm": (torch.bmm, [(2, 5, 7), (2, 7, 3)]),
    "baddbmm": (lambda a, b, c, out: torch.baddbmm(c, a, b, alpha=2, out=out), [(2, 5, 7), (2, 7, 3), (2, 5, 3)]),
    "addbmm": (lambda a, b, c, out: torch.addbmm(c, a, b, out=out), [(2, 5, 7), (2, 7, 3), (5, 3)]),
    "mv": (torch.mv, [(5, 7), (7,)]),
    "addmv": (lambda a, v, c, out: torch.addmv(c, a, v, out=out), [(5, 7), (7,), (5,)]),
    "dot": (torch.dot, [(7,), (7,)]),
    "vdot": (torch.vdot, [(7,), (7,)]),
    "outer": (torch.outer, [(5,), (3,)]),
    "matmul": (torch.matmul, [(2, 5, 7), (7, 3)]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=dtype_id)
@pytest.mark.parametrize("case", OUT_CASES.values(), ids=OUT_CASES.keys())
def test_out_is_resized_and_written_like_cpu(case, dtype):
    fn, shapes = case
    cpu = [normal(shape, dtype, seed=i) for i, shape in enumerate(shapes)]
    cpu_out = torch.full((3,), 7, dtype=dtype)  # the wrong shape: the operator must resize it
    foo_out = cpu_out.to(FOO)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "An output with one or more elements was resized")
        outcome = run_like_cpu(lambda: fn(*cpu, out=cpu_out), lambda: fn(*(t.to(FOO) for t in cpu), out=foo_out))
    assert outcome is not None
    assert outcome[0] is foo_out
    assert_close_to_cpu(foo_out, cpu_out, TOLERANCES)


IN_PLACE_CASES = {
    "addmm_": (lambda c, a, b: c.addmm_(a, b, beta=0.5, alpha=-2), [(5, 3), (5, 7), (7, 3)]),
    "baddbmm_": (lambda c, a, b: c.baddbmm_(a, b, alpha=0.5), [(2, 5, 3), (2, 5, 7), (2, 7, 3)]),
    "addbmm_": (lambda c, a, b: c.addbmm_(a, b, beta=3), [(5, 3), (2, 5, 7), (2, 7, 3)]),
    "addmv_": (lambda c, a, v: c.addmv_(a, v, beta=-1), [(5,), (5, 7), (7,)]),
    "transposed_addmm_": (lambda c, a, b: c.t().addmm_(a, b), [(3, 5), (5, 7), (7, 3)]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("case", IN_PLACE_CASES.values(), ids=IN_PLACE_CASES.keys())
def test_in_place_matches_cpu(case, dtype):
    fn, shapes = case
    cpu = [normal(shape, dtype, seed=i) for i, shape in enumerate(shapes)]
    foo = [t.to(FOO) for t in cpu]
    returned = fn(*foo)
    fn(*cpu)
    assert returned.data_ptr() == foo[0].data_ptr()
    assert_close_to_cpu(foo[0], cpu[0], TOLERANCES)


# Each gets a foo and a CPU matrix, both (4, 4).
MIXED_DEVICE_CASES = {
    "mm_foo_cpu": lambda f, c: torch.mm(f, c),
    "mm_cpu_foo": lambda f, c: torch.mm(c, f),
    "addmm_cpu_bias": lambda f, c: torch.addmm(c, f, f),
    "addmm_cpu_factor": lambda f, c: torch.addmm(f, c, f),
    "bmm": lambda f, c: torch.bmm(f.unsqueeze(0), c.unsqueeze(0)),
    "matmul": lambda f, c: f @ c,
    "mv": lambda f, c: torch.mv(f, c[0]),
    "dot": lambda f, c: torch.dot(f[0], c[0]),
    "linear_cpu_weight": lambda f, c: F.linear(f, c),
}


@pytest.mark.parametrize("case", MIXED_DEVICE_CASES.values(), ids=MIXED_DEVICE_CASES.keys())
def test_operands_on_different_devices_are_rejected(case):
    """As on CUDA: a CPU operand that is not 0-dim is an error, not a silent copy."""
    with pytest.raises(RuntimeError, match="device"):
        case(torch.ones(4, 4, device=FOO), torch.ones(4, 4))


# Each gets two foo or two CPU tensors of the given dtypes and shapes.
INVALID_CASES = {
    "mm_inner_sizes_differ": (torch.mm, [(4, 5), (4, 5)], [torch.float32] * 2),
    "mm_dtypes_differ": (torch.mm, [(4, 5), (5, 3)], [torch.float32, torch.float64]),
    "mm_of_a_vector": (torch.mm, [(4,), (4, 3)], [torch.float32] * 2),
    "bmm_batches_differ": (torch.bmm, [(2, 4, 5), (3, 5, 3)], [torch.float32] * 2),
    "bmm_dtypes_differ": (torch.bmm, [(2, 4, 5), (2, 5, 3)], [torch.float16, torch.float32]),
    "dot_lengths_differ": (torch.dot, [(4,), (5,)], [torch.float32] * 2),
    "dot_dtypes_differ": (torch.dot, [(4,), (4,)], [torch.float32, torch.float16]),
    "matmul_0_dim": (torch.matmul, [(), (4,)], [torch.float32] * 2),
}


def integers(shape: Shape, dtype: torch.dtype, seed: int) -> Tensor:
    """Integers over the dtype's whole range: their products and sums wrap around."""
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(dtype)


# Integer products are exact, wrapping around as the CPU's do; alpha and beta are converted to the dtype first
# (0.5 truncates to 0; -3 is an error for uint8).
INTEGER_CASES = {
    "mm": (lambda a, b, c: a @ b, [(5, 7), (7, 3), (5, 3)]),
    "transposed": (lambda a, b, c: a.t().contiguous().t() @ b.t().contiguous().t(), [(5, 7), (7, 3), (5, 3)]),
    "addmm_fractional": (lambda a, b, c: torch.addmm(c, a, b, beta=0.5, alpha=2.5), [(5, 7), (7, 3), (5, 3)]),
    "addmm_negative": (lambda a, b, c: torch.addmm(c, a, b, beta=-3, alpha=-1.5), [(5, 7), (7, 3), (5, 3)]),
    "baddbmm": (lambda a, b, c: torch.baddbmm(c, a, b, beta=2, alpha=3), [(2, 4, 6), (2, 6, 5), (2, 4, 5)]),
    "addmv_broadcast": (lambda a, b, c: torch.addmv(c[:1].expand(5), a, b, beta=7), [(5, 7), (7,), (5,)]),
    "dot": (lambda a, b, c: torch.dot(a, b), [(9,), (9,), ()]),
    "empty_k": (lambda a, b, c: torch.addmm(c, a, b), [(3, 0), (0, 2), (3, 2)]),
    # longer than Mesa 22's llvmpipe runs a work-item's loop: K is cut into chunks there
    "long_k": (lambda a, b, c: torch.addmm(c, a, b, beta=3), [(3, 70000), (70000, 2), (3, 2)]),
}


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8], ids=dtype_id)
@pytest.mark.parametrize("case", INTEGER_CASES.values(), ids=INTEGER_CASES.keys())
def test_integer_products_are_exact_like_cpu(case, dtype):
    fn, shapes = case
    cpu = [integers(shape, dtype, seed=i) for i, shape in enumerate(shapes)]
    results = run_like_cpu(lambda: fn(*cpu), lambda: fn(*(t.to(FOO) for t in cpu)), same_message=True)
    if results is not None:  # (else both raised: a negative alpha for uint8)
        got, expected = results
        assert got.dtype == expected.dtype
        assert torch.equal(got.cpu(), expected)


@pytest.mark.parametrize(("dtype", "name"), [(torch.bool, "Bool"), (torch.uint32, "UInt32")], ids=["bool", "uint32"])
def test_products_of_dtypes_the_cpu_rejects_raise(dtype, name):
    x = torch.ones(2, 2, dtype=dtype, device=FOO)
    with pytest.raises(RuntimeError, match=f"matrix products of {name} tensors are not supported"):
        x @ x


@pytest.mark.parametrize("case", INVALID_CASES.values(), ids=INVALID_CASES.keys())
def test_invalid_operands_raise_like_cpu(case):
    fn, shapes, dtypes = case
    cpu = [normal(shape, dtype, seed=0) for shape, dtype in zip(shapes, dtypes)]
    assert run_like_cpu(lambda: fn(*cpu), lambda: fn(*(t.to(FOO) for t in cpu))) is None


def test_long_k_matches_cpu_on_devices_that_end_loops_early():
    # A work-item at the edge of C loops TM x TN x K times: past 65535 iterations in all Mesa 22's
    # llvmpipe stops it silently, so foo splits K there; elsewhere this is one launch.
    a, b = normal((2, 17, 5000), torch.float32, seed=1), normal((2, 5000, 9), torch.float32, seed=2)
    torch.testing.assert_close(torch.bmm(a.to(FOO), b.to(FOO)).cpu(), torch.bmm(a, b), rtol=1e-4, atol=1e-3)


def test_deep_products_walk_groups_in_bands_like_cpu():
    # gemm_nn runs its work-groups in bands along M sized to the device's cache: with K = 4096 a
    # band on PoCL is a few groups of 48 rows, so 600 rows take whole bands and a partial last one.
    a, b = normal((600, 4096), torch.float32, seed=1), normal((4096, 96), torch.float32, seed=2)
    for x, y in [(a, b), (a[:, :2048].t().contiguous().t(), b[:2048])]:
        torch.testing.assert_close((x.to(FOO) @ y.to(FOO)).cpu(), x @ y, rtol=1e-4, atol=2e-3)
