"""torch.compile on foo (Inductor generating OpenCL C): compiled functions against eager foo and the CPU.

Pointwise chains and their dtype rules, lanes (whole blocks and their remainders), reductions over every dim (rows of
every length against their blocks, columns of every width, ties and NaN), an embedding's gradient (atomic adds after
a reduction), softmax and layer_norm patterns, broadcasting and strided inputs, in-place mutation and views,
float16/bfloat16 computed in float32 (bitcasts keeping their bits), special functions, random numbers, the two example
models and GPT-2, BERT and Llama (tiny configs, from transformers) forward and training, autocast inside a compiled
region, recompilation on new shapes (static, automatic and dynamic), and fresh processes. No test may fall back to the
CPU.
"""

import copy
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, PROPERTIES, TINY_TRANSFORMERS, dtype_id, run_python, tiny_transformer
from torch._inductor.utils import run_and_get_code

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for examples/

from examples import train_cnn, train_transformer

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Each test compiles from scratch (no recompile limits carried over between tests)."""
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def compiled(fn: Callable) -> Callable:
    return torch.compile(fn, dynamic=False)


def check(
    fn: Callable, *inputs: Tensor, rtol: float = 1e-5, atol: float = 1e-5, on_cpu: Callable | None = None
) -> None:
    """fn compiled on foo against fn eager on foo and on the CPU (same inputs; on_cpu, where given, runs
    there instead of fn)."""
    on_foo = [x.to(FOO) for x in inputs]
    got = compiled(fn)(*on_foo)
    eager = fn(*on_foo)
    cpu = (on_cpu or fn)(*inputs)
    for expected, where in [(eager, "eager foo"), (cpu, "CPU")]:
        torch.testing.assert_close(
            _cpu(got), _cpu(expected), rtol=rtol, atol=atol, equal_nan=True, msg=lambda m, w=where: f"against {w}: {m}"
        )


def _cpu(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_cpu(v) for v in value)
    return value.cpu()


def normal(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g).to(dtype)


# ---- pointwise ---------------------------------------------------------------------------------------------------

POINTWISE = {
    "chain": lambda x, y: ((x * 1.5 + y).sigmoid() * (x - y).tanh()).relu().exp() - 1,
    "math": lambda x, y: x.sin() + y.cos() + x.abs().sqrt() + x.abs().log1p() + x.atan() + torch.erf(y),
    "where_clamp": lambda x, y: torch.where(x > y, x.clamp(-0.5, 0.5), y * 2),
    "maximum_nan": lambda x, y: torch.maximum(x.log(), y) + torch.minimum(x, y.log()),
    "pow_div": lambda x, y: x.abs().pow(y.abs() + 0.5) / (y + 0.1),
    "division_by_zero": lambda x, y: x / (y.abs() * 0),
    "broadcast": lambda x, y: x[:, None, :] * y[None, :, :1] + y[:, 0].reshape(1, -1, 1),
    "transposed": lambda x, y: x.t() + y.t() * 2,
    "sliced": lambda x, y: x[::2, 1:] - y[1::2, :-1],
    "expanded": lambda x, y: x[:1].expand(x.shape[0], -1) + y,
    "cat_pad": lambda x, y: F.pad(torch.cat([x, y.flip(0)], 1), (1, 2, 0, 3), value=-1.0),
    "pad_broadcast": lambda x, y: F.pad(y[:1, :1].expand(x.shape), (3, 2), value=-1.0) * x[:, :1],
    "gelu_silu": lambda x, y: F.gelu(x) + F.silu(y) + F.gelu(x, approximate="tanh"),
}


@pytest.mark.parametrize("name", POINTWISE)
def test_pointwise_matches_eager_and_cpu(name):
    x, y = normal(24, 20, seed=1), normal(24, 20, seed=2)
    check(POINTWISE[name], x, y, rtol=2e-5, atol=1e-5)


def lanes_mix(x: Tensor, y: Tensor, flags: Tensor, small: Tensor) -> tuple[Tensor, Tensor]:
    """Reads whole blocks of lanes (x), one element for all lanes (y[0]), every third element (y[::3]), bool and
    int8 lanes; writes float and float16 lanes."""
    n = x.shape[0]
    mixed = torch.where(flags, x * y[0], y[::3][:n] - small.float())
    return mixed.sin() + (small % 3).float(), (mixed * 2).half()


@pytest.mark.parametrize("n", [1, 7, 9, 15, 17, 33, 100, 1003, 4099])
def test_pointwise_lanes_and_their_remainders(n):
    # CPU devices compute 16 lanes at a time and the rest one at a time: sizes around and between blocks.
    x, y = normal(n, seed=30), normal(3 * n, seed=31)
    flags = normal(n, seed=32) > 0
    small = (normal(n, seed=33) * 50).to(torch.int8)
    check(lanes_mix, x, y, flags, small, rtol=1e-3, atol=1e-3)


INTEGER_OPS = {
    "floor_divide": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "trunc_divide": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "bitwise": lambda a, b: (a & b) | torch.bitwise_left_shift(a ^ 3, b.abs() % 4),
    "pow": lambda a, b: a.pow(b.abs() % 5),
    "true_divide": lambda a, b: a / b,
    "compare": lambda a, b: (a > b) & (a != 0) | (b <= -3),
    "abs_sign_neg": lambda a, b: a.abs() * b.sign() - (-a),
}


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("name", INTEGER_OPS)
def test_integer_ops_follow_pytorch_rounding(name, dtype):
    a = torch.arange(-20, 20, dtype=dtype)
    b = torch.tensor([-7, -3, -2, 3, 5, 7, 11, -11], dtype=dtype).repeat(5)
    check(INTEGER_OPS[name], a, b)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64], ids=dtype_id)
def test_shifts_by_counts_past_the_width_shift_every_bit_out(dtype):
    """PyTorch shifts by a negative count or one from the bit width on give 0 to the left and the sign to the right;
    OpenCL's take the count modulo the width. 40 elements: CPU devices' 16-lane blocks and their scalar tail."""
    a = torch.tensor([1, 3, 100, -5, 0, -128, 77, -1], dtype=torch.int64).repeat(5).to(dtype)
    counts = torch.tensor([0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, -1, -3], dtype=torch.int64)
    s = counts[torch.arange(40) % 15].to(dtype)
    check(lambda a, s: (a << s, a >> s, torch.bitwise_left_shift(a, 3), a >> 2), a, s, rtol=0, atol=0)


def test_unsigned_division_and_the_sign_of_nan():
    a = torch.arange(200, 240, dtype=torch.int64).to(torch.uint8)
    b = torch.arange(0, 40, dtype=torch.uint8) % 9 + 1
    check(lambda a, b: (a // b, a % b, torch.div(a, b, rounding_mode="trunc")), a, b, rtol=0, atol=0)
    x = torch.tensor([math.nan, -0.0, 2.0, -3.0, math.inf, -math.inf, 0.5, math.nan]).repeat(5)
    check(torch.sign, x)  # NaN's sign is 0, as (0 < x) - (x < 0)


NAN_FUNCTIONS = ["exp", "exp2", "expm1", "sinh", "tanh", "floor", "ceil", "trunc", "sin", "log", "sigmoid", "erf"]


def test_functions_of_a_nan_known_when_the_kernel_is_built():
    """A NaN the kernel's compiler can see (here a row a constant mask fills with -inf, then -inf - -inf) goes
    through each function as NaN; PoCL dropped the stores of exp, floor and others of such a NaN, leaving stale
    memory in the scalar tail of the kernel's range (elements 48-59 of a softmax over 60)."""

    def masked_softmax(x: Tensor) -> Tensor:
        return x.masked_fill(torch.ones(x.shape[-1], dtype=torch.bool, device=x.device), -math.inf).softmax(-1)

    check(masked_softmax, normal(2, 5, 6, seed=40))

    def functions_of_nan(x: Tensor) -> list[Tensor]:
        nan = torch.where(torch.ones_like(x, dtype=torch.bool), math.nan, x)
        return [getattr(torch, name)(nan) + x for name in NAN_FUNCTIONS]

    check(functions_of_nan, normal(60, seed=41))

    def binary_functions_of_nan(x: Tensor) -> list[Tensor]:
        nan = torch.where(torch.ones_like(x, dtype=torch.bool), math.nan, x)
        one, zero = torch.ones_like(x), torch.zeros_like(x)
        return [
            torch.round(nan) + x,
            torch.atan2(nan, x) + x,
            torch.fmod(nan, 2.0) + x,
            torch.remainder(nan, x) + x,
            nan // 2.0 + x,
            torch.div(nan, 3.0, rounding_mode="trunc") + x,
            torch.pow(nan, 2.5) + x,
            torch.pow(nan, zero) + torch.pow(one, nan) + x,  # 1 whatever the other
            torch.hypot(nan, x.abs() / 0) + x,  # infinite where either is
            torch.nextafter(nan, x) + x,
        ]

    check(binary_functions_of_nan, normal(60, seed=42))


def test_one_hot_checks_its_classes():
    classes = torch.tensor([0, 5, 2, 3, 1, 4] * 6)
    check(lambda i: F.one_hot(i, 6), classes)
    fn = compiled(lambda i: F.one_hot(i, 6))
    fn(classes.to(FOO))
    bad = classes.clone()
    bad[-1] = 6
    with pytest.raises(RuntimeError, match="failed assertion in a compiled kernel"):
        fn(bad.to(FOO))
        torch.foo.synchronize()
    torch.foo.synchronize()  # reported once


CASTS = {
    "to_int": lambda x: (x * 10).int(),
    "to_uint8_from_negative": lambda x: (x * 10).to(torch.uint8),
    "to_bool": lambda x: (x.round()).bool().float() + x,
    "to_half_rounds": lambda x: (x * 1000.1).half().float(),
    "to_bfloat16_rounds": lambda x: (x * 1000.1).bfloat16().float(),
}


@pytest.mark.parametrize("name", CASTS)
def test_casts_round_like_cpu(name):
    check(CASTS[name], normal(1000, seed=3))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_half_precision_computes_in_float32(dtype):
    # foo's kernels load float16/bfloat16 into float32, compute, and round once on the store.
    x, y = normal(64, 33, dtype=dtype, seed=4), normal(64, 33, dtype=dtype, seed=5)
    fn = lambda x, y: (x * y + x.exp()).tanh() * 3
    got = compiled(fn)(x.to(FOO), y.to(FOO)).cpu()
    in_float32 = fn(x.float(), y.float()).to(dtype)
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if dtype == torch.bfloat16 else {"rtol": 1e-3, "atol": 1e-3}
    torch.testing.assert_close(got, in_float32, **tolerance)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=dtype_id)
def test_bitcasts_keep_the_bits(dtype):
    # float16 and bfloat16 values compute in float32: their bits are those of the value in its own type.
    bits_dtype = torch.int32 if dtype == torch.float32 else torch.int16
    x = normal(1003, dtype=dtype, seed=37)
    fn = lambda x: ((x * 2).view(bits_dtype) + 1, ((x * 2).view(bits_dtype) ^ 1).view(dtype) * 4)
    check(fn, x, rtol=0, atol=0)


def test_float64_keeps_double_precision():
    x = normal(500, dtype=torch.float64, seed=6)
    check(lambda x: (x * 1e-9 + 1).log() * 1e9 + torch.erf(x), x, rtol=1e-12, atol=1e-12)


def test_erf_is_accurate_in_float32():
    x = torch.cat([torch.linspace(-6, 6, 20001), torch.logspace(-10, 0, 300), -torch.logspace(-10, 0, 300)])
    got = compiled(torch.erf)(x.to(FOO)).cpu().double()
    torch.testing.assert_close(got, torch.erf(x.double()), rtol=3e-7, atol=2e-7)


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "erf", "tanh", "gelu"])
def test_vectorised_float_math_across_its_range(name):
    """kernels_cl/vector_math.clh's float sin, cos, tan, erf and tanh, compiled and eager: through the reduced range,
    past |x| = 8192 where sin and cos take the builtin lane by lane, and blocks of lanes mixing the two."""
    fn = F.gelu if name == "gelu" else getattr(torch, name)
    sweep = [torch.linspace(-20, 20, 40001), torch.linspace(-9000, 9000, 40001)]
    x = torch.cat([*sweep, torch.tensor([8192.0, 8192.5, 1.0, -1e6, 3e38, 1e-40, -0.0, 252.89821, -505.79642])])
    # The CPU's float32 gelu overflows to inf at 3e38 with its AVX-512 kernels: gelu's CPU reference is float64's.
    on_cpu = (lambda x: fn(x.double()).float()) if name == "gelu" else None
    check(fn, x, rtol=1e-5, atol=2e-6, on_cpu=on_cpu)


SPECIAL = {
    "erfinv": lambda x: torch.erfinv(x * 2 - 1),
    "digamma": lambda x: torch.digamma(x * 5),
    "bessel_i0_i1e": lambda x: torch.special.i0(x * 3) + torch.special.i1e(x),
    "zeta": lambda x: torch.special.zeta(x + 1.5, x + 0.5),
    "bessel_j0_k1": lambda x: torch.special.bessel_j0(x * 10) + torch.special.modified_bessel_k1(x + 0.1),
    "chebyshev": lambda x: torch.special.chebyshev_polynomial_t(x, torch.full_like(x, 5.0)),
    "gammainc": lambda x: torch.special.gammainc(x * 3, x * 2),
    "ndtr_ldexp": lambda x: torch.special.ndtr(x) + torch.ldexp(x, torch.tensor(3, device=x.device)),
    "ndtri_log_ndtr": lambda x: torch.special.ndtri(x) + torch.special.log_ndtr(x * 8 - 4),
    "polygamma": lambda x: torch.polygamma(0, x + 0.5) + torch.polygamma(1, x) + torch.polygamma(3, x * 2),
    "frexp": lambda x: torch.frexp(x * 1000 - 300),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("name", SPECIAL)
def test_special_functions_from_foo_headers(name, dtype):
    x = (torch.rand(500, generator=torch.Generator().manual_seed(17)) * 0.98 + 0.01).to(dtype)
    tolerance = 1e-6 if dtype == torch.float32 else 1e-13
    check(SPECIAL[name], x, rtol=tolerance, atol=tolerance)


# ---- reductions --------------------------------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda x, d: x.sum(d),
    "mean_keepdim": lambda x, d: x.mean(d, keepdim=True),
    "amax": lambda x, d: x.amax(d),
    "amin": lambda x, d: x.amin(d),
    "prod": lambda x, d: (x * 0.1 + 1).prod(d),
    "argmax": lambda x, d: x.argmax(d),
    "argmin": lambda x, d: x.argmin(d),
    "var_mean": lambda x, d: torch.var_mean(x, d),
    "std_correction_0": lambda x, d: x.std(d, correction=0),
    "any_all": lambda x, d: ((x > 1).any(d), (x > -2).all(d)),
    "logsumexp": lambda x, d: x.logsumexp(d),
    "sum_then_pointwise": lambda x, d: x - x.mean(d, keepdim=True) * x.amax(d, keepdim=True),
}


# prod and the arg reductions take one dim (or, for the arg reductions, none: the whole tensor).
SINGLE_DIM = {"prod", "argmax", "argmin"}
REDUCTION_CASES = [
    (name, dim)
    for name in REDUCTIONS
    for dim in [0, 1, 2, (0, 2), "all"]
    if not (name in SINGLE_DIM and (isinstance(dim, tuple) or (dim == "all" and name == "prod")))
]


@pytest.mark.parametrize(("name", "dim"), REDUCTION_CASES, ids=str)
def test_reductions_over_every_dim(name, dim):
    # 13 x 37 x 21: rows that are not multiples of the 16 (or, over columns, 8) lanes; rounded values for ties in arg
    # reductions.
    x = (normal(13, 37, 21, seed=7) * 4).round() / 4
    if dim == "all":
        dim = None if name in SINGLE_DIM else (0, 1, 2)
    check(lambda x: REDUCTIONS[name](x, dim), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("row", [1, 5, 8, 13, 16, 17, 33, 67])
def test_reduction_rows_of_every_length_against_their_blocks(row):
    # A row is walked in blocks of 16 lanes: whole blocks, then the last one with the lanes past the row's end left out
    # (reads, accumulators, and the normalised row written back).
    x = (normal(6, row, seed=34) * 4).round() / 4
    fn = lambda x: (
        x.sum(1),
        x.amax(1),
        x.argmin(1),
        x.var(1, correction=0),
        (x > 0.5).any(1),
        (x > 0.5).any(1).float() + (x > -0.5).all(1).float(),
        x - x.mean(1, keepdim=True),
        x.to(torch.int8).sum(1),
    )
    check(fn, x, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("columns", [5, 8, 13, 64, 67, 200])
def test_column_reductions_take_their_lanes_along_the_outputs(columns):
    # A reduction over rows of contiguous outputs (a bias gradient's x.sum(0)) takes 8 neighbouring outputs as its
    # lanes, then the rest one at a time: each lane's accumulator is its own output's, its loads and stores are the
    # lanes of one row (a weight read once per output, the normalised column written back). On CPU devices the first
    # loop's turns take 8 such blocks together (64 columns), then blocks alone (200: 3 groups, a block, none alone).
    x, w = (normal(37, columns, seed=37) * 4).round() / 4, normal(columns, seed=38)
    fn = lambda x, w: (
        (x * w).sum(0),
        x.amax(0),
        x.argmin(0),
        x.var(0, correction=0),
        (x > 0.5).any(0),
        (x > 0.5).any(0).float() + (x > -0.5).all(0).float(),  # a bool result is 0 or 1 in the kernel too
        (x - x.mean(0, keepdim=True)) * w,
        x.to(torch.int8).sum(0),
    )
    check(fn, x, w, rtol=1e-5, atol=1e-5)
    _, (code,) = run_and_get_code(compiled(lambda x: x.sum(0)), x.to(FOO))
    assert "'columns')" in code and "'rows')" not in code


@pytest.mark.parametrize("batch_first", [True, False], ids=["columns", "rows"])
def test_embedding_gradient_adds_each_row_once(batch_first):
    # The gradient of a position embedding sums over the batch (a reduction over columns when the batch is the outer
    # dim, over rows when it is the inner one), then adds into the table at the indices: each output's result is added
    # once, not once per lane.
    table = normal(32, 64, seed=35)
    grad = normal(8, 32, 64, seed=36) if batch_first else normal(32, 64, 8, seed=36)

    def fn(table, grad):
        table = table.clone().requires_grad_()
        rows = F.embedding(torch.arange(32, device=table.device), table)
        expanded = rows.expand(8, 32, 64) if batch_first else rows.unsqueeze(-1).expand(32, 64, 8)
        (expanded * grad).sum().backward()
        return table.grad

    check(fn, table, grad, rtol=1e-5, atol=1e-5)


def test_arg_reductions_pick_the_first_nan_and_the_first_tie():
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0, 2.0, 3.0, 1.0, 3.0, 0.5]] * 3)
    x[1, 6] = float("nan")
    x[1, 8] = float("nan")
    x[2, :] = 2.0
    check(lambda x: (x.argmax(1), x.argmin(1), x.amax(1), x.amin(1)), x)
    # The same along columns, whose lanes are outputs (9 of them: a block of 8 and one more).
    columns = torch.cat([x, x, x]).t().contiguous()
    check(lambda x: (x.argmax(0), x.argmin(0), x.amax(0), x.amin(0)), columns)


def test_long_rows_and_a_full_reduction():
    x = normal(3, 100003, seed=8)
    check(lambda x: (x.sum(1), x.var(1), x.sum()), x, rtol=1e-4, atol=1e-3)


def test_long_reductions_to_few_outputs_are_as_accurate_as_eager():
    # 2**22 floats (mean 1) reduced to one value or to 64 columns: split by Inductor into partial
    # reductions, not one work-item's loop, whose sum was 7.6e-6 off and variance 1.6e-4.
    x = normal(1 << 22, seed=9) + 1
    fn = compiled(lambda x: (x.sum(), x.var(), x.reshape(65536, 64).sum(0)))
    for value, expected in zip(
        fn(x.to(FOO)), (x.double().sum(), x.double().var(), x.double().reshape(65536, 64).sum(0))
    ):
        torch.testing.assert_close(value.cpu().double(), expected, rtol=2e-6, atol=0)


@pytest.mark.parametrize(
    ("line", "shape", "dim"), [("row", (1_200_000,), 0), ("column", (70_000, 16), 0)], ids=["row", "column"]
)
def test_a_reduction_longer_than_the_driver_loops_raises(line, shape, dim):
    # One row of 1.2M elements (split reductions off): 75K turns of the loop over 16 lanes; a column of 70K: 70K
    # turns. Both are past Mesa 22's llvmpipe's 65535, where foo raises rather than let the driver end the loop early.
    x = normal(*shape, seed=18)
    fn = compiled(lambda x: x.sum(dim))
    with torch._inductor.config.patch(split_reductions=False):
        if PROPERTIES.loop_iteration_limit:
            with pytest.raises(RuntimeError, match=f"loops .* times over a reduction {line}"):
                fn(x.to(FOO))
        else:
            torch.testing.assert_close(fn(x.to(FOO)).cpu().double(), x.double().sum(dim), rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("shape", [(64, 100), (7, 3, 1000)], ids=str)
def test_softmax_and_layer_norm_patterns(shape):
    x = normal(*shape, seed=9)
    w, b = normal(shape[-1], seed=10), normal(shape[-1], seed=11)
    check(lambda x: F.softmax(x, -1), x)
    check(lambda x: F.log_softmax(x, 0), x)
    check(lambda x, w, b: F.gelu(F.layer_norm(x, x.shape[-1:], w, b)) + x, x, w, b, rtol=1e-4, atol=1e-4)
    check(lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, x, w, rtol=1e-4, atol=1e-4)


# ---- mutation, views, indexing -----------------------------------------------------------------------------------


def test_in_place_mutation_of_inputs_is_kept():
    def fn(x, y):
        x.mul_(2).add_(y)
        y[::2] = 0
        return x.sum()

    x, y = normal(16, 8, seed=12), normal(16, 8, seed=13)
    fx, fy = x.to(FOO), y.to(FOO)
    total = compiled(fn)(fx, fy)
    cx, cy = x.clone(), y.clone()
    expected = fn(cx, cy)
    torch.testing.assert_close(total.cpu(), expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(fx.cpu(), cx)
    torch.testing.assert_close(fy.cpu(), cy)


def test_views_and_indexing():
    x = normal(6, 4, 5, seed=14)
    index = torch.tensor([3, 0, 5, 5])
    check(lambda x: (x.permute(2, 0, 1).reshape(5, -1) * 2, x[index].sum(0), x.view(24, 5)[1::3]), x)
    check(lambda x: x.index_add(0, torch.tensor([0, 2, 2, 1, 0, 5], device=x.device), x * 2), x)


# ---- 0-d CPU tensors --------------------------------------------------------------------------------------------

# Functions of a foo tensor x and a 0-d CPU tensor s (a step count, a condition), with a value of s and a second one.
CPU_SCALARS = {
    "float32": (lambda x, s: x * s + 1, 2.5, -0.75),
    "float16": (lambda x, s: x * s, 2.5, 0.125),
    "bfloat16": (lambda x, s: x + s, -1.25, 3.0),
    "int64": (lambda x, s: x * s, 3, -(2**40) - 7),
    "int32_true_division": (lambda x, s: x / s, 3, 2),
    "bool_condition_first": (lambda x, s: torch.where(s, x, -x), True, False),
    "scalar_first": (lambda x, s: s * x, 2.5, 0.5),
    "computed_on_the_cpu": (lambda x, s: x * (s * 2 + 1), 0.75, -2.0),
    "in_a_reduction": (lambda x, s: (x * s).sum(1), 1.5, -3.0),
    "in_a_column_reduction": (lambda x, s: (x * s).sum(0), 1.5, -3.0),
    "as_an_index": (lambda x, s: x[s] * 2, 3, -1),
    "uint8": (lambda x, s: x + s, 200, 7),
}
CPU_SCALAR_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int32_true_division": torch.int32,
    "uint8": torch.uint8,
}


@pytest.mark.parametrize("name", CPU_SCALARS)
def test_zero_dim_cpu_tensors_are_read_by_value_as_kernels_launch(name):
    """A 0-d CPU tensor read by a foo kernel is passed by value, read at each launch (a new value needs no new
    graph); an op whose first input is one runs on foo, as eagerly (it ran on the CPU, reading foo memory)."""
    fn, first, second = CPU_SCALARS[name]
    dtype = CPU_SCALAR_DTYPES.get(name)
    x = normal(37, 5, seed=40)
    run = compiled(fn)
    for value in (first, second):
        s = torch.tensor(value, dtype=dtype)
        got = run(x.to(FOO), s)
        assert got.device.type == "foo"
        torch.testing.assert_close(got.cpu(), fn(x, s), rtol=1e-6, atol=1e-6)


def test_float64_zero_dim_cpu_tensor_keeps_its_precision():
    s = torch.tensor(1 + 2**-40, dtype=torch.float64)
    x = normal(9, dtype=torch.float64, seed=41)
    got = compiled(lambda x, s: (x * s - x) * 2**40)(x.to(FOO), s)
    torch.testing.assert_close(got.cpu(), (x * s - x) * 2**40, rtol=0, atol=1e-9)


def test_a_compiled_optimizer_step_matches_eager():
    """torch.compile(optimizer.step): AdamW's step counts are 0-d CPU tensors, which its generated update reads.
    Both optimizers see the same gradients (a model's backward would differ in rounding, which Adam's division by
    the root of tiny second moments magnifies, as on the CPU)."""
    shapes = [(64, 32), (32,), (7, 3, 5)]
    params = [[normal(*shape, seed=50 + i).to(FOO).requires_grad_() for i, shape in enumerate(shapes)] for _ in range(2)]
    optimizers = [torch.optim.AdamW(group, lr=1e-2) for group in params]
    steps = [optimizers[0].step, torch.compile(optimizers[1].step)]
    for t in range(3):
        grads = [normal(*shape, seed=60 + 10 * t + i).to(FOO) for i, shape in enumerate(shapes)]
        for group, step in zip(params, steps):
            for p, grad in zip(group, grads):
                p.grad = grad.clone()
            step()
    for p, q in zip(*params):
        torch.testing.assert_close(q.detach().cpu(), p.detach().cpu(), rtol=1e-5, atol=1e-6)


@pytest.mark.two_devices
def test_a_graph_on_the_second_device_runs_and_allocates_there():
    """The wrapper enters each kernel's device: a graph on foo:1, foo:0 current, allocated on foo:0."""
    x, w = normal(64, 33, seed=42), normal(33, 8, seed=43)
    on_1 = w.to("foo:1").requires_grad_()
    fn = lambda x, w: ((x @ w).relu() * 2).sum(0)
    got = compiled(fn)(x.to("foo:1"), on_1)
    got.sum().backward()
    assert got.device == torch.device("foo:1") and on_1.grad.device == torch.device("foo:1")
    assert torch.foo.current_device() == 0
    on_cpu = w.clone().requires_grad_()
    expected = fn(x, on_cpu)
    expected.sum().backward()
    torch.testing.assert_close(got.detach().cpu(), expected.detach(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(on_1.grad.cpu(), on_cpu.grad, rtol=1e-5, atol=1e-5)


def relative_buckets(i: Tensor, j: Tensor) -> Tensor:
    """T5's relative position buckets (transformers' _relative_position_bucket, bidirectional, 8 buckets)."""
    relative = j[None, :] - i[:, None]
    buckets = (relative > 0).long() * 4
    distance = relative.abs()
    large = 2 + (torch.log(distance.float() / 2) / math.log(16 / 2) * 2).long()
    return buckets + torch.where(distance < 2, distance, torch.minimum(large, torch.full_like(large, 3)))


# Functions of positions i and j (aranges made in the graph, which Inductor folds into the kernel's sympy indexing):
# each operand of abs, a select and a true division is a sum or difference, printed inside the op.
INDEX_EXPRESSIONS = {
    "abs": lambda i, j: (j[None, :] - i[:, None]).abs(),
    "negated_abs": lambda i, j: -(i[:, None] - 2 * j[None, :]).abs() + 1,
    "where": lambda i, j: torch.where(j[None, :] > i[:, None], j[None, :] - i[:, None], 1 - j[None, :] + i[:, None]),
    "true_divide": lambda i, j: (j[None, :] - i[:, None] + 1) / (i[:, None] + 2),
    "t5_buckets": relative_buckets,
}


@pytest.mark.parametrize("name", INDEX_EXPRESSIONS)
def test_index_expressions_keep_their_operands_together(name):
    def positions(x: Tensor) -> Tensor:
        i, j = (torch.arange(n, device=x.device) for n in x.shape)
        return INDEX_EXPRESSIONS[name](i, j) + x

    check(positions, torch.zeros(7, 9), rtol=1e-6, atol=0)


def lane_index_expressions():
    """Indices of a block's root variable x (sympy, as Inductor writes them) and whether lane-to-lane
    offsets are constants in blocks of 16: windows, strides and transposes are; remainders and
    quotients by numbers that neither divide nor are multiples of 16 are not."""
    import sympy
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x = sympy.Symbol("x", integer=True, nonnegative=True)
    r, s0 = sympy.Symbol("r", integer=True, nonnegative=True), sympy.Symbol("s0", integer=True, positive=True)
    s1 = sympy.Symbol("s1", integer=True, nonnegative=True)  # a size of a dynamic shape (Inductor's are so)
    pool = ModularIndexing(x, 1, 2048)
    return (
        x,
        {r: 3, s0: 5, s1: 37},
        {
            "pool_window": (
                2 * ModularIndexing(pool, 1, 8) + 32 * FloorDiv(pool, 8) + 8192 * FloorDiv(x, 2048) + 17,
                True,
            ),
            "contiguous": (x + 5, True),
            "stride_3": (3 * x + r, True),
            "transpose": (64 * ModularIndexing(x, 1, 64) + FloorDiv(x, 64), True),
            "nested": (ModularIndexing(x, 4, 4) + s0 * ModularIndexing(x, 1, 4), True),
            "remainder_3": (ModularIndexing(x, 1, 3), False),
            "quotient_3": (FloorDiv(x, 3), False),
            "remainder_12": (ModularIndexing(x, 1, 12), False),
            "quotient_100": (4 * FloorDiv(x, 100), False),
            "shifted_quotient": (FloorDiv(x + 3, 32), False),
            "symbolic_remainder": (ModularIndexing(x, 1, s0), False),
            "product": (x * FloorDiv(x, 16), False),
            # In blocks within rows of a length (third item) that is no multiple of 16.
            "padding_in_rows": (
                56 * ModularIndexing(x, 58, 58) + ModularIndexing(x, 1, 58) + 3136 * FloorDiv(x, 3364),
                True,
                58,
            ),
            "channel_of_14x14": (ModularIndexing(x, 196, 256), True, 196),
            "scaled_row": (FloorDiv(2 * x, 116), True, 58),
            "half_row_remainder": (ModularIndexing(x, 1, 58), True, 29),
            "half_row_quotient": (FloorDiv(x, 29), False, 58),
            "dynamic_channel": (ModularIndexing(x, s1, 7), True, s1),
            "dynamic_row_remainder": (3 * ModularIndexing(x, 1, s1) + 5 * FloorDiv(x, s1 * 7), True, s1),
        },
    )


@pytest.mark.parametrize("name", list(lane_index_expressions()[2]))
def test_lane_offsets_are_each_lanes_distance_from_lane_0(name):
    """Generated kernels read a block's lanes at lane 0's index plus these offsets where they are constants
    (foo_cl.inductor.codegen._lane_offsets), in every block or in those within a row: checked against every lane
    of many blocks."""
    import sympy

    from foo_cl.inductor.codegen import _lane_offsets

    x, values, expressions = lane_index_expressions()
    index, constant, *row = expressions[name]
    row = row[0] if row else 0
    offsets = _lane_offsets(index, x, 16, row)
    assert (offsets is not None) == constant
    if offsets is None:
        return
    row = int(sympy.sympify(row).subs(values))
    for block in range(300):
        if row and (16 * block) % row + 16 > row:
            continue  # (the kernel reads such blocks lane by lane: FOO_IN_ROW)
        start = int(index.subs({x: 16 * block, **values}))
        for lane, offset in enumerate(offsets):
            assert int(index.subs({x: 16 * block + lane, **values})) - start == int(sympy.sympify(offset).subs(values))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool], ids=dtype_id)
def test_concatenated_inputs_are_read_in_vector_loads_where_a_block_takes_one(dtype):
    """cat's inputs are masked loads (each input where the output's index falls in it) at an index Inductor keeps
    from simplifying: a block wholly in one input reads it with one vector load and skips the others; a block across
    inputs (widths 5 and 11 below) reads lane by lane."""
    w, x, y, z = ((normal(40, width, seed=40 + width) * 4).round().to(dtype) for width in (64, 64, 5, 11))
    fn = lambda w, x, y, z: (torch.cat([w, x], 0).flip(0), torch.cat([w, y, z], 1).flip(0))
    check(fn, w, x, y, z, rtol=0, atol=0)
    _, (code,) = run_and_get_code(compiled(fn), w.to(FOO), x.to(FOO), y.to(FOO), z.to(FOO))
    load = "FOO_LANES_LOAD_HALF(" if dtype == torch.float16 else "FOO_LANES_LOAD("
    assert code.count("FOO_ALL(") >= 5 and code.count(load) >= 5


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_a_value_cast_to_half_precision_is_rounded_once_by_its_store(dtype):
    """x.to(float16/bfloat16) stored as is: the store rounds the float value (the cast's own rounding would be
    a second, which changes nothing), ties to even and NaN included."""
    ulp = torch.finfo(dtype).eps
    x = torch.tensor([1 + ulp / 2, 1 + 3 * ulp / 2, -(1 + ulp / 2), 3.0, float("nan"), -float("inf"), 1e-3] * 5)
    check(lambda x: (x * 1).to(dtype), x, rtol=0, atol=0)
    _, (code,) = run_and_get_code(compiled(lambda x: (x * 1).to(dtype)), x.to(FOO))
    rounding = "FOO_ROUND_TO_HALF" if dtype == torch.float16 else "FOO_ROUND_TO_BFLOAT16"
    rounded, unrounded = re.search(rf"(tmp\d+) = {rounding}\((tmp\d+)\);", code).groups()
    stores = [line for line in code.splitlines() if "FOO_LANES_STORE" in line]
    assert stores and all(unrounded in line and rounded not in line for line in stores)


@pytest.mark.parametrize("hw", [7, 14, 29])
def test_rows_of_other_lengths_than_the_lanes_take_vector_forms_in_blocks_within_a_row(hw):
    """Per-channel parameters of 7x7 and 14x14 images (planes of 49 and 196) and padding's rows (of hw + 3): in
    blocks within a row (FOO_IN_ROW) one element or consecutive ones, lane by lane across rows; rows shorter than a
    block (padding's of 10) lane by lane, rows of a multiple of a block (32) in vector forms in every block."""
    x, w = normal(3, 5, hw, hw, seed=hw), normal(5, seed=hw + 1)
    channels = lambda x, w: F.relu(x * w[:, None, None] + 1)
    padding = lambda x: F.pad(x, (1, 2, 3, 1)) * 2
    check(channels, x, w)
    check(padding, x)
    _, (code,) = run_and_get_code(compiled(channels), x.to(FOO), w.to(FOO))
    assert "FOO_IN_ROW(" in code
    _, (code,) = run_and_get_code(compiled(padding), x.to(FOO))
    assert ("FOO_IN_ROW(" in code) == (hw + 3 > 16 and (hw + 3) % 16 != 0)  # (rows of 32: every block)
    # With dynamic shapes the rows are the planes' size, a symbol: checked at each block, not divided per lane.
    torch._dynamo.reset()
    dynamic = torch.compile(channels, dynamic=True)
    _, (code,) = run_and_get_code(dynamic, x.to(FOO), w.to(FOO))
    assert "FOO_IN_ROW(" in code
    torch.testing.assert_close(dynamic(x.to(FOO), w.to(FOO)).cpu(), channels(x, w))


@pytest.mark.parametrize("shape", [(2, 3, 16, 16), (3, 2, 14, 14)])
def test_windowed_and_strided_reads(shape):
    """Max pooling, every other element and a transpose: reads a constant apart within a block, or not (odd
    widths), in both directions (the pooling's backward)."""
    x = normal(*shape, seed=31)
    check(lambda x: F.max_pool2d(F.relu(x * 2), 2), x)
    check(lambda x: x[:, :, ::2, ::2] + x[:, :, 1::2, 1::2] * x.transpose(2, 3)[:, :, ::2, 1::2], x)
    check(pool_backward, x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_per_channel_math_is_computed_once_for_the_lanes(dtype):
    """A channel's values (a batch_norm-like scale from one element per channel) are one number in every lane of
    a block: the generated code computes their arithmetic and rsqrt once (FOO_SPLAT of scalar code), NaN, inf and
    negative variances included, against eager foo and the CPU."""
    x = normal(2, 4, 8, 16, dtype=dtype, seed=43)
    var = torch.tensor([4.0, -1.0, 0.0, float("nan")], dtype=dtype).view(1, 4, 1, 1)
    shift = normal(1, 4, 1, 1, dtype=dtype, seed=44)

    def fn(x, var, shift):
        return (x - shift) * torch.rsqrt(var / 3 + 1e-5) * 2 + torch.sqrt(var * 0.5 - shift)

    check(fn, x, var, shift)
    _, (code,) = run_and_get_code(compiled(fn), x.to(FOO), var.to(FOO), shift.to(FOO))
    t = "float" if dtype == torch.float32 else "double"
    assert f"FOO_SPLAT({t}, FOO_NAN_OR(FOO_LANE({t}, " in code and "rsqrt(FOO_LANE(" in code


@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int8, torch.bool],
    ids=dtype_id,
)
def test_every_other_element_is_read_in_vector_loads(dtype):
    """Reads two apart (x[..., ::2], pooling windows of stride 2) take two vector loads and a shuffle
    (FOO_LANES_LOAD_EVEN), in pointwise kernels (16 lanes), along a reduction's rows (whose last block is short) and
    across its columns (8 lanes), for every element width."""
    x = (normal(6, 76, seed=39) * 8).round().to(dtype)
    fn = lambda x: (
        x[:, ::2] + x[:, 1::2],
        x[:, 1::2].to(torch.float32).sum(1),
        x[:, ::2].to(torch.float32).sum(0),
    )
    check(fn, x, rtol=1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-5, atol=1e-5)
    _, (code,) = run_and_get_code(compiled(fn), x.to(FOO))
    assert code.count("FOO_LANES_LOAD_HALF_EVEN(" if dtype == torch.float16 else "FOO_LANES_LOAD_EVEN(") >= 8


def pool_backward(x: Tensor) -> Tensor:
    out, indices = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
    return torch.ops.aten.max_pool2d_with_indices_backward(out * 2, x, [2, 2], [2, 2], [0, 0], [1, 1], False, indices)


def test_pooling_with_indices_runs_foos_kernels():
    """Max pooling whose indices the graph reads, and its backward, run foo's own kernels: not Inductor's
    argmax (a chain of 64-bit selects per tap) with its offsets-to-indices kernel, nor PyTorch's scatter_add
    decomposition (an atomic add per element in generated code) or Inductor's window gather (inlined into
    every consumer). A pooling whose indices go unread is generated, fused with the ReLU before it."""
    _, code = run_and_get_code(torch.compile(pool_backward), normal(2, 3, 8, 8).to(FOO))
    code = "".join(code)
    assert "aten.max_pool2d_with_indices.default(" in code and "aten.max_pool2d_with_indices_backward" in code
    assert "ATOMIC_ADD" not in code
    torch._dynamo.reset()
    _, (code,) = run_and_get_code(torch.compile(lambda x: F.max_pool2d(F.relu(x), 2)), normal(2, 3, 8, 8).to(FOO))
    assert "aten.max_pool2d_with_indices.default(" not in code and code.count("__kernel void") == 1


def test_training_pooling_matches_eager():
    """Compiled forward and backward of a scaled ReLU and max pooling (foo's kernels, the indices read by the
    backward), against eager foo and the eager CPU."""
    x, weight = normal(4, 5, 11, 9, seed=41), normal(5, 1, 1, seed=42)  # odd sizes: ceil_mode's partial windows

    def fn(x, weight):
        return (F.max_pool2d(F.relu(x * weight), 2, ceil_mode=True) * 3).sum()

    def input_grad(f, device):
        leaf = x.detach().to(device).requires_grad_()
        f(leaf, weight.to(device)).backward()
        return leaf.grad.cpu()

    expected = input_grad(fn, "cpu")
    torch.testing.assert_close(input_grad(fn, FOO), expected)
    torch.testing.assert_close(input_grad(torch.compile(fn), FOO), expected)


def test_an_index_in_masked_lanes_is_not_reported():
    """Padding masks the lanes outside the gathered values: their index (from a masked load, 0 - 5, so -2 after
    wrapping around 3 elements) is outside the tensor, and neither reported nor read."""

    def fn(x, idx):
        return F.pad(x[idx - 5], (2, 2))

    x, idx = normal(3, seed=5).to(FOO), torch.tensor([2, 4, 7, 6], device=FOO)
    torch.testing.assert_close(compiled(fn)(x, idx).cpu(), fn(x.cpu(), idx.cpu()))
    torch.foo.synchronize()


def test_graphs_that_convolve_on_foo_keep_nchw():
    """No channels-last layout optimisation for foo's convolutions (im2col and GEMM over NCHW), unless forced."""
    from torch._inductor.graph import GraphLowering
    from torch.fx.experimental.proxy_tensor import make_fx

    def conv(x, w):
        return torch.ops.aten.convolution(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1).relu()

    compiled(conv)(normal(2, 16, 8, 8, seed=3).to(FOO), normal(32, 16, 3, 3, seed=4).to(FOO))  # loads the backend
    gm = make_fx(conv)(torch.randn(2, 16, 8, 8, device=FOO), torch.randn(32, 16, 3, 3, device=FOO))
    assert not GraphLowering.decide_layout_opt(gm, is_inference=False)
    with torch._inductor.config.patch(force_layout_optimization=True):
        assert GraphLowering.decide_layout_opt(gm, is_inference=False)


@pytest.mark.parametrize("position", [10, -11, 12], ids=["size", "below", "beyond"])
def test_an_index_out_of_range_raises_index_error_at_the_next_synchronisation(position):
    """A compiled gather and embedding report the bad index in the device's error word, read nothing outside their
    buffers, and the next synchronisation raises (once), as CUDA's device-side asserts. -11 wraps below -10."""

    def fn(w, idx, x):
        return F.embedding(idx, w) * 2, x[idx]

    w, x = normal(10, 16, seed=1).to(FOO), normal(10, seed=2).to(FOO)
    compiled_fn = compiled(fn)
    good = torch.tensor([1, 3, 9], device=FOO)
    results = compiled_fn(w, good, x)
    torch.testing.assert_close([r.cpu() for r in results], [r.cpu() for r in fn(w, good, x)])
    compiled_fn(w, torch.tensor([1, position, 9], device=FOO), x)
    with pytest.raises(IndexError, match="out of range in a compiled kernel.*at the next synchronisation"):
        torch.foo.synchronize()
    torch.foo.synchronize()


# ---- random ------------------------------------------------------------------------------------------------------


def test_random_numbers_in_compiled_code():
    def fn(x):
        return torch.rand_like(x), torch.randn_like(x), F.dropout(x, 0.25, training=True)

    x = torch.ones(200_000, device=FOO)
    torch.manual_seed(0)
    (uniform, gaussian, dropped), (code,) = run_and_get_code(compiled(fn), x)
    # Inductor's seed load and element index: every lane one seed and consecutive elements, proven
    # in the generated code (the _RUN forms), not checked at every block.
    assert code.count("FOO_RAND_RUN(") == 4 and code.count("FOO_RANDN_RUN(") == 2 and "FOO_RAND(" not in code
    assert 0 <= uniform.min().item() and uniform.max().item() < 1
    assert abs(uniform.mean().item() - 0.5) < 0.01 and abs(gaussian.mean().item()) < 0.01
    assert abs(gaussian.std().item() - 1) < 0.01
    kept = (dropped != 0).float().mean().item()
    assert abs(kept - 0.75) < 0.01 and torch.all((dropped == 0) | (dropped == 1 / 0.75)).item()
    torch.manual_seed(0)
    again = compiled(fn)(x)
    torch.testing.assert_close(again[0], uniform)  # the same seed gives the same numbers


def philox_bits(key: int, elements: np.ndarray, wide: bool) -> np.ndarray:
    """kernels_cl/inductor.clh's random bits of `elements` under `key`, from a reference Philox4x32-10:
    words of the tile layout of random/philox.clh (a 32-bit word, or two for 64 bits)."""
    mask = np.uint64(0xFFFFFFFF)
    e = elements.astype(np.uint64)
    per_tile = 16 if wide else 32
    x, y = (e // per_tile) * 8 + e % 8, np.zeros_like(e)
    z, w = np.zeros_like(e), np.zeros_like(e)
    k0, k1 = np.uint64(key & 0xFFFFFFFF), np.uint64(key >> 32)
    for _ in range(10):
        p0, p1 = x * np.uint64(0xD2511F53), z * np.uint64(0xCD9E8D57)
        x, y, z, w = (p1 >> np.uint64(32)) ^ y ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ w ^ k1, p0 & mask
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    group = (e % per_tile) // 8
    if wide:
        return np.where(group == 0, x | y << np.uint64(32), z | w << np.uint64(32))
    return np.choose(group.astype(np.int64), [x, y, z, w])


@pytest.mark.parametrize("shape", [(1005,), (7, 13), (7, 37)], ids=["blocks_and_tail", "rows_of_13", "rows_of_37"])
def test_compiled_random_numbers_are_philox_of_seed_and_element(shape):
    """Elements in whole blocks of 16 lanes (two of 8, from a tile kept between blocks), in tails and in rows that
    start off a block's boundary draw the same Philox words for the same (seed, element)."""
    x = torch.zeros(shape, device=FOO)
    elements = np.arange(x.numel())
    torch.manual_seed(3)
    # Inductor's seed: the generator's next draw, as the wrapper makes it (as a 64-bit key).
    key = int(torch.randint(-(2**63), 2**63 - 1, [1], device=FOO).item()) % 2**64
    for op, wide in [(torch.rand_like, False), (torch.randn_like, True)]:
        bits = philox_bits(key, elements, wide)
        if wide:
            u1 = ((bits & np.uint64(0xFFFFFFFF)) >> np.uint64(8)).astype(np.float64) * 2**-24 + 2**-24
            u2 = (bits >> np.uint64(40)).astype(np.float64) * 2**-24
            expected = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)
        else:
            expected = (bits >> np.uint64(8)).astype(np.float64) * 2**-24
        expected = torch.from_numpy(expected.reshape(shape)).float()
        torch.manual_seed(3)
        drawn = compiled(lambda t, op=op: op(t) + t)(x)
        torch.testing.assert_close(drawn.cpu(), expected, rtol=1e-4, atol=1e-5)
        # Weighted by position, so that a value in the wrong element of its row shows.
        weights = torch.arange(1.0, shape[-1] + 1)
        torch.manual_seed(3)
        row_sums = compiled(lambda t, w, op=op: (op(t) * w).sum(-1))(x, weights.to(FOO))
        torch.testing.assert_close(row_sums.cpu(), (expected * weights).sum(-1), rtol=1e-4, atol=1e-4)
    torch.manual_seed(3)
    integers = compiled(lambda t: torch.randint(0, 1000, t.shape, device=t.device) + t.long())(x)
    expected = philox_bits(key, elements, True) % np.uint64(1000)
    assert torch.equal(integers.cpu(), torch.from_numpy(expected.astype(np.int64).reshape(shape)))


# ---- models ------------------------------------------------------------------------------------------------------


def without_dropout(model: torch.nn.Module) -> torch.nn.Module:
    """foo's compiled code draws other random numbers than eager foo: the comparisons train without dropout."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        if isinstance(module, torch.nn.MultiheadAttention):
            module.dropout = 0.0
    return model


EXAMPLES = {"cnn": (train_cnn, train_cnn.SmallCNN), "transformer": (train_transformer, train_transformer.TinyLM)}


def example_loss(module, model: torch.nn.Module, inputs: Tensor, targets: Tensor) -> Tensor:
    out = model(inputs)
    if module is train_transformer:
        return train_transformer.next_token_loss(out, targets)
    return F.cross_entropy(out, targets)


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_cnn_inference_compiles_like_eager(memory_format):
    """Under no_grad Inductor makes convolutions' operands channels_last (its layout optimisation); foo's
    convolution results are contiguous, as the code it generates asserts."""
    torch.manual_seed(0)
    model = train_cnn.SmallCNN().eval().to(FOO)
    inputs = train_cnn.synthetic_batches(1)[0][0].to(FOO).contiguous(memory_format=memory_format)
    with torch.no_grad():
        torch.testing.assert_close(compiled(model)(inputs), model(inputs), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_models_train_compiled_like_eager(name):
    module, make = EXAMPLES[name]
    torch.manual_seed(0)
    model = without_dropout(make()).to(FOO)
    eager, to_compile = model, copy.deepcopy(model)
    compiled_model = torch.compile(to_compile)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.05) for m in (eager, to_compile)]
    for inputs, targets in module.synthetic_batches(3):
        inputs, targets = inputs.to(FOO), targets.to(FOO)
        losses = []
        for net, optimizer in zip((eager, compiled_model), optimizers):
            optimizer.zero_grad()
            loss = example_loss(module, net, inputs, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        assert losses[1] == pytest.approx(losses[0], rel=1e-4)
    for p, q in zip(eager.parameters(), to_compile.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-4, atol=1e-5)


@pytest.mark.compiled_models
@pytest.mark.parametrize("name", TINY_TRANSFORMERS)
def test_transformers_models_compile_forward_and_train(name):
    torch.manual_seed(0)
    eager = tiny_transformer(name).to(FOO)
    trained = copy.deepcopy(eager)
    compiled_model = torch.compile(trained)
    tokens = torch.randint(0, 97, (2, 16), generator=torch.Generator().manual_seed(1)).to(FOO)
    with torch.no_grad():
        torch.testing.assert_close(
            compiled_model(tokens, labels=tokens).logits.cpu(),
            eager(tokens, labels=tokens).logits.cpu(),
            rtol=1e-4,
            atol=1e-4,
        )
    for _ in range(2):
        losses = []
        for net, params in ((eager, eager.parameters()), (compiled_model, trained.parameters())):
            loss = net(tokens, labels=tokens).loss
            loss.backward()
            losses.append(loss.item())
            with torch.no_grad():
                for p in params:
                    p -= 0.01 * p.grad
                    p.grad = None
        assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    for p, q in zip(eager.parameters(), trained.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-5, atol=1e-6)


def test_autocast_inside_a_compiled_region():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.LayerNorm(64)).to(FOO)
    x = normal(8, 32, seed=15).to(FOO)

    def fn(x):
        with torch.autocast("foo", dtype=torch.float16):
            return model(x)

    expected, got = fn(x), compiled(fn)(x)
    assert got.dtype == expected.dtype
    torch.testing.assert_close(got.cpu().float(), expected.cpu().float(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dynamic", [False, None, True], ids=["static", "automatic", "dynamic"])
def test_new_shapes_recompile_or_run_dynamic(dynamic):
    # automatic: the second shape recompiles with symbolic sizes (size arguments, Min/Max in indices).
    def fn(x, w):
        y = F.layer_norm(x * 2, x.shape[-1:], w).softmax(-1)
        return y.sum(0), x[:, 1:].t() * x.shape[0] + x.mean()

    compiled_fn = torch.compile(fn, dynamic=dynamic)
    for shape in [(4, 10), (3, 17), (5, 23), (4, 10)]:
        x, w = normal(*shape, seed=16), normal(shape[-1], seed=17)
        for got, expected in zip(compiled_fn(x.to(FOO), w.to(FOO)), fn(x, w)):
            torch.testing.assert_close(got.cpu(), expected, rtol=1e-5, atol=1e-5)


# ---- processes ---------------------------------------------------------------------------------------------------

FRESH = """
import torch
{first}
x = torch.arange(6.0, device="foo")
print(torch.compile(lambda x: (x * 2).sin().sum())(x).item())
"""


@pytest.mark.parametrize("first", ["", "import torch._dynamo, torch._inductor.compile_fx\nimport foo_cl"])
def test_a_fresh_process_compiles_in_any_import_order(first):
    env = {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"} if first else {}
    result = run_python(FRESH.format(first=first), **env)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout.strip().splitlines()[-1]) == pytest.approx(float((torch.arange(6.0) * 2).sin().sum()))


def test_generated_code_is_shown_by_torch_logs():
    result = run_python(FRESH.format(first=""), TORCH_LOGS="output_code", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    assert result.returncode == 0, result.stderr
    assert (
        "__kernel void foo_red_fused_mul_sin_sum_0(" in result.stderr
        and "FOO_GRID_LOOP(xindex, xnumel)" in result.stderr
    )
