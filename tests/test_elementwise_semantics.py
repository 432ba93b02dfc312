"""CPU semantics the elementwise kernels must reproduce beyond plain arithmetic: NaN propagation,
integer division by zero, integer wrap-around, rounding half to even, pow corner cases, denormals,
out-of-range shifts, half/bfloat16 intermediates, and iteration over more dims than one launch takes.
Where a test states the CPU's answer, it checks that the CPU still gives it before comparing foo.
"""

import math

import pytest
import torch
from conftest import FLOAT_DTYPES, FOO, assert_exact, dtype_id, run_like_cpu, to_foo_keeping_layout

pytestmark = pytest.mark.usefixtures("no_fallback")

INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
NAN, INF = math.nan, math.inf


def assert_foo_gives(fn, inputs: list[torch.Tensor], expected: torch.Tensor) -> None:
    """fn on the CPU gives `expected` (the semantics the test states), and fn on foo gives the same bits."""
    cpu_result = fn(*inputs)
    assert_exact(cpu_result, expected)
    foo_result = fn(*(t.to(FOO) if isinstance(t, torch.Tensor) else t for t in inputs))
    assert foo_result.device == FOO
    assert_exact(foo_result.cpu(), expected)


# ---- NaN propagation ----------------------------------------------------------------------------------

NAN_A = [NAN, 1.0, NAN, -INF, 2.0, -1.0]
NAN_B = [2.0, NAN, NAN, NAN, 3.0, 0.0]
NAN_CASES = {
    "maximum": (torch.maximum, [NAN, NAN, NAN, NAN, 3.0, 0.0]),
    "minimum": (torch.minimum, [NAN, NAN, NAN, NAN, 2.0, -1.0]),
    "fmax": (torch.fmax, [2.0, 1.0, NAN, -INF, 3.0, 0.0]),
    "fmin": (torch.fmin, [2.0, 1.0, NAN, -INF, 2.0, -1.0]),
    "clamp_min_tensor": (torch.clamp_min, [NAN, NAN, NAN, NAN, 3.0, 0.0]),
    "clamp_max_tensor": (torch.clamp_max, [NAN, NAN, NAN, NAN, 2.0, -1.0]),
    "clamp_tensor_bounds": (lambda a, b: torch.clamp(a, min=b, max=b + 1), [NAN, NAN, NAN, NAN, 3.0, 0.0]),
    "clamp_scalar_bounds": (lambda a, b: torch.clamp(a, min=0.5, max=1.5), [NAN, 1.0, NAN, 0.5, 1.5, 0.5]),
    "clamp_nan_min": (lambda a, b: torch.clamp(a, min=NAN), [NAN] * 6),
    "clamp_nan_max": (lambda a, b: torch.clamp(a, max=NAN), [NAN] * 6),
    "clamp_min_nan": (lambda a, b: torch.clamp_min(a, NAN), [NAN] * 6),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", NAN_CASES.values(), ids=NAN_CASES.keys())
def test_nan_propagation(case, dtype):
    """maximum, minimum and clamp propagate NaN; fmax and fmin return the other operand."""
    fn, expected = case
    a, b = torch.tensor(NAN_A, dtype=dtype), torch.tensor(NAN_B, dtype=dtype)
    assert_foo_gives(fn, [a, b], torch.tensor(expected, dtype=dtype))


# ---- integer division by zero -------------------------------------------------------------------------

INTEGER_DIVISIONS = {
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "floor_divide": torch.floor_divide,
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "floor_divide_in_place": lambda a, b: a.floor_divide_(b),
    "remainder_out": lambda a, b: torch.remainder(a, b, out=torch.empty_like(a)),
}


@pytest.mark.parametrize("divisor", ["tensor", "python_zero", "zero_dim_cpu_tensor"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fn", INTEGER_DIVISIONS.values(), ids=INTEGER_DIVISIONS.keys())
def test_integer_division_by_zero_raises_like_cpu(fn, dtype, divisor):
    a = torch.tensor([7, 8, 9], dtype=dtype)
    if divisor == "tensor":
        cpu_b, foo_b = torch.tensor([1, 0, 3], dtype=dtype), torch.tensor([1, 0, 3], dtype=dtype, device=FOO)
    else:
        cpu_b = foo_b = 0 if divisor == "python_zero" else torch.tensor(0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a.clone(), cpu_b)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a.to(FOO), foo_b).cpu()


@pytest.mark.parametrize("fn", INTEGER_DIVISIONS.values(), ids=INTEGER_DIVISIONS.keys())
def test_integer_division_ignores_zeros_outside_the_divisor_view(fn):
    """Only the elements a view selects are divisors: zeros elsewhere in its storage must not raise."""
    a = torch.tensor([7, -8, 9], dtype=torch.int32)
    b = torch.tensor([2, 0, -3, 0, 5, 0], dtype=torch.int32)
    outcome = run_like_cpu(lambda: fn(a.clone(), b[::2]), lambda: fn(a.to(FOO), b.to(FOO)[::2]))
    assert outcome is not None
    assert_exact(outcome[0].cpu(), outcome[1])


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("fn", INTEGER_DIVISIONS.values(), ids=INTEGER_DIVISIONS.keys())
def test_integer_division_across_int32s_range_matches_cpu(fn, dtype):
    """Dividends and divisors on both sides of int32's bounds, and each type's most negative value."""
    info = torch.iinfo(dtype)
    values = [info.min, info.min + 1, -(2**31) - 1, -(2**31), -(2**31) + 1, -7, 0, 7, 2**31 - 1, 2**31, info.max]
    a = torch.tensor([v for v in values if info.min <= v <= info.max], dtype=dtype)
    divisors = [d for d in [2, -3, 7, 2**31 - 1, -(2**31), 2**31 + 5, info.min] if info.min <= d <= info.max]
    a, b = a.repeat(len(divisors)), torch.tensor(divisors, dtype=dtype).repeat_interleave(len(a))
    outcome = run_like_cpu(lambda: fn(a.clone(), b), lambda: fn(a.to(FOO), b.to(FOO)))
    assert outcome is not None
    assert_exact(outcome[0].cpu(), outcome[1])


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64], ids=dtype_id)
def test_integer_division_by_minus_one(dtype):
    """Remainders by -1 are 0 and quotients the negation, the most negative value's wrapping to itself (the
    CPU backend's scalar loop traps on it, so the expected values are written out)."""
    info = torch.iinfo(dtype)
    a = torch.tensor([info.min, info.min + 1, -7, 0, 7, info.max], dtype=dtype)
    negated = torch.tensor([info.min, info.max, 7, 0, -7, info.min + 1], dtype=dtype)
    minus_one = torch.full_like(a, -1).to(FOO)
    for fn, expected in [
        (torch.floor_divide, negated),
        (lambda x, y: torch.div(x, y, rounding_mode="trunc"), negated),
        (torch.remainder, torch.zeros_like(a)),
        (torch.fmod, torch.zeros_like(a)),
    ]:
        assert_exact(fn(a.to(FOO), minus_one).cpu(), expected)


@pytest.mark.parametrize("dtype", INT_DTYPES + [torch.bool], ids=dtype_id)
def test_true_division_of_integers_by_zero_gives_inf_and_nan(dtype):
    a = torch.tensor([1, 0, 1, 0], dtype=dtype)
    if dtype.is_signed:
        a = torch.tensor([5, -3, 0, 0], dtype=dtype)
    expected = {True: [INF, -INF, NAN, NAN], False: [INF, NAN, INF, NAN]}[dtype.is_signed]
    zeros = torch.zeros(4, dtype=dtype)
    assert_foo_gives(torch.div, [a, zeros], torch.tensor(expected))
    assert_foo_gives(torch.true_divide, [a, 0], torch.tensor(expected))


# ---- integer wrap-around ------------------------------------------------------------------------------

WRAP_CASES = {
    "int8_max_plus_one": (torch.add, torch.int8, [127], 1, [-128]),
    "int16_min_minus_one": (torch.sub, torch.int16, [-(2**15)], 1, [2**15 - 1]),
    "int32_max_plus_one": (torch.add, torch.int32, [2**31 - 1], 1, [-(2**31)]),
    "int64_max_plus_one": (torch.add, torch.int64, [2**63 - 1], 1, [-(2**63)]),
    "uint8_zero_minus_one": (torch.sub, torch.uint8, [0], 1, [255]),
    "uint8_product": (torch.mul, torch.uint8, [16], 17, [16]),
    "int8_product": (torch.mul, torch.int8, [100], 3, [44]),
    "int32_product": (torch.mul, torch.int32, [65536], 65536, [0]),
    "int8_alpha": (lambda a, b: torch.add(a, b, alpha=100), torch.int8, [0], 3, [44]),
    "int8_neg_min": (lambda a, b: torch.neg(a), torch.int8, [-128], 0, [-128]),
    "int8_abs_min": (lambda a, b: torch.abs(a), torch.int8, [-128], 0, [-128]),
    "int32_square": (lambda a, b: torch.square(a), torch.int32, [2**16 + 1], 0, [2**17 + 1]),
}


@pytest.mark.parametrize("other", ["tensor", "python_number"])
@pytest.mark.parametrize("case", WRAP_CASES.values(), ids=WRAP_CASES.keys())
def test_integer_overflow_wraps_around(case, other):
    fn, dtype, a, b, expected = case
    a = torch.tensor(a, dtype=dtype)
    b = torch.tensor([b], dtype=dtype) if other == "tensor" else b
    assert_foo_gives(fn, [a, b], torch.tensor(expected, dtype=dtype))


# ---- rounding -----------------------------------------------------------------------------------------

HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 0.49999997]
ROUND_CASES = {
    "round": (torch.round, [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 0.0]),
    "round_in_place": (lambda t: t.clone().round_(), [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 0.0]),
    # x * 10 and its rounding to tens are exact, so 5, 15 and 25 are true ties.
    "round_decimals_-1": (lambda t: torch.round(t * 10, decimals=-1), [0.0, 20.0, 20.0, -0.0, -20.0, -20.0, 40.0, 0.0]),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", ROUND_CASES.values(), ids=ROUND_CASES.keys())
def test_round_half_to_even(case, dtype):
    fn, expected = case
    x = torch.tensor(HALVES, dtype=dtype)
    assert_foo_gives(fn, [x], torch.tensor(expected, dtype=dtype))


# ---- pow ----------------------------------------------------------------------------------------------

NEGATIVE_BASES = [-2.0, -1.0, -0.0, -INF, -3.0]
NEGATIVE_BASE_CASES = {
    "cube": (3, [-8.0, -1.0, -0.0, -INF, -27.0]),
    "square": (2, [4.0, 1.0, 0.0, INF, 9.0]),
    "minus_one": (-1, [-0.5, -1.0, -INF, -0.0, -1 / 3]),
    "minus_two": (-2, [0.25, 1.0, INF, 0.0, 1 / 9]),
    "float_integer": (5.0, [-32.0, -1.0, -0.0, -INF, -243.0]),
    "non_integer": (1.5, [NAN, NAN, 0.0, INF, NAN]),
    "zero": (0, [1.0, 1.0, 1.0, 1.0, 1.0]),
}


def assert_close_with_signs(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Within assert_close's tolerance (pow need not be correctly rounded), with the sign of every number."""
    torch.testing.assert_close(actual, expected, equal_nan=True)
    numbers = ~torch.isnan(expected)
    assert torch.equal(torch.signbit(actual[numbers]), torch.signbit(expected[numbers])), "signs differ"


@pytest.mark.parametrize("exponent_kind", ["python_number", "tensor"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("case", NEGATIVE_BASE_CASES.values(), ids=NEGATIVE_BASE_CASES.keys())
def test_pow_of_negative_base(case, dtype, exponent_kind):
    """Integer exponents give signed results, other exponents NaN, as C's pow."""
    exponent, expected = case
    base = torch.tensor(NEGATIVE_BASES, dtype=dtype)
    if exponent_kind == "tensor":
        exponent = torch.full((5,), exponent, dtype=dtype)
    cpu = torch.pow(base, exponent)
    assert_close_with_signs(cpu, torch.tensor(expected, dtype=torch.float64).to(dtype))
    foo = torch.pow(base.to(FOO), exponent.to(FOO) if exponent_kind == "tensor" else exponent)
    assert_close_with_signs(foo.cpu(), cpu)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_pow_of_python_one_half_is_sqrt(dtype):
    """The CPU computes x ** 0.5 as sqrt(x): sqrt(-0.0) is -0.0 and sqrt(-inf) NaN, unlike C's pow."""
    assert_foo_gives(
        torch.pow,
        [torch.tensor(NEGATIVE_BASES, dtype=dtype), 0.5],
        torch.tensor([NAN, NAN, -0.0, NAN, NAN], dtype=dtype),
    )


@pytest.mark.parametrize("exponent", [-1, -3])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_integer_pow_of_a_negative_python_exponent_raises_like_cpu(dtype, exponent):
    a = torch.tensor([1, 2, 3], dtype=dtype)
    for fn in [torch.pow, torch.Tensor.pow_]:
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            fn(a.clone(), exponent)
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            fn(a.to(FOO), exponent)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64], ids=dtype_id)
def test_integer_pow_with_negative_tensor_exponents(dtype):
    """1 ** -n is 1, (-1) ** -n is +-1, every other base gives 0 (the CPU's integer pow)."""
    base = torch.tensor([1, -1, -1, 2, -2, 5, 0, 3], dtype=dtype)
    exponent = torch.tensor([-3, -3, -2, -1, -1, -2, 2, 0], dtype=dtype)
    assert_foo_gives(torch.pow, [base, exponent], torch.tensor([1, -1, 1, 0, 0, 0, 0, 1], dtype=dtype))


def wrapped(value: int, dtype: torch.dtype) -> int:
    """`value` modulo 2 ** bits, in the range of `dtype`."""
    info = torch.iinfo(dtype)
    return (value - info.min) % 2**info.bits + info.min


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_integer_pow_wraps_around(dtype):
    base = [3, 7, 2, -5 if dtype.is_signed else 250]
    exponent = [5, 9, 40, 3]
    expected = torch.tensor([wrapped(b**e, dtype) for b, e in zip(base, exponent)], dtype=dtype)
    assert_foo_gives(torch.pow, [torch.tensor(base, dtype=dtype), torch.tensor(exponent, dtype=dtype)], expected)


# ---- denormals ----------------------------------------------------------------------------------------

DENORMAL_CASES = {
    "float32_plus_zero": (torch.float32, 1e-40, lambda t: t + 0.0),
    "float32_times_one": (torch.float32, 1e-40, lambda t: t * 1.0),
    "float32_doubled": (torch.float32, 1e-40, lambda t: t + t),
    "float32_halved": (torch.float32, 1e-40, lambda t: t / 2),
    "float32_from_normal": (torch.float32, 1e-37, lambda t: t * 1e-3),
    "float32_negated": (torch.float32, 1e-40, torch.neg),
    "float64_plus_zero": (torch.float64, 1e-310, lambda t: t + 0.0),
    "float64_times_three": (torch.float64, 1e-310, lambda t: t * 3),
    "float16_times_one": (torch.float16, 1e-7, lambda t: t * 1.0),
    "float16_halved": (torch.float16, 1e-6, lambda t: t / 2),
}


@pytest.mark.parametrize("case", DENORMAL_CASES.values(), ids=DENORMAL_CASES.keys())
def test_denormals_survive_like_cpu(case):
    """The CPU does not flush denormals to zero (torch.get_flush_denormal() is False)."""
    dtype, value, fn = case
    x = torch.tensor([value, -value, 0.0], dtype=dtype)
    expected = fn(x)
    assert expected[0] != 0 and expected[0].abs() < torch.finfo(dtype).tiny
    result = fn(x.to(FOO))
    assert_exact(result.cpu(), expected)


# ---- shifts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("amount_kind", ["tensor", "python_number"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fn", [torch.bitwise_left_shift, torch.bitwise_right_shift], ids=["left", "right"])
def test_shifts_by_the_bit_width_or_more_and_by_negative_amounts(fn, dtype, amount_kind):
    """The CPU treats an amount outside [0, bits) (compared as unsigned, so negative amounts count as huge)
    as shifting every bit out: 0, or -1 for a right shift of a negative value."""
    info = torch.iinfo(dtype)
    values = [1, info.max, info.min, -1 if dtype.is_signed else 77, 5]
    amounts = [info.bits - 1, info.bits, info.bits + 1, 2 * info.bits + 3]
    if dtype.is_signed:
        amounts += [-1, -info.bits]
    for amount in amounts:
        shift = torch.full((5,), amount, dtype=dtype) if amount_kind == "tensor" else amount
        cpu = fn(torch.tensor(values, dtype=dtype), shift)
        if amount >= info.bits or amount < 0:
            out_of_range = [-1 if v < 0 and fn is torch.bitwise_right_shift else 0 for v in values]
            assert_exact(cpu, torch.tensor(out_of_range, dtype=dtype))
        foo = fn(torch.tensor(values, dtype=dtype, device=FOO), shift.to(FOO) if amount_kind == "tensor" else shift)
        assert_exact(foo.cpu(), cpu)


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int32, torch.int64], ids=dtype_id)
def test_python_shift_operators_run_on_foo(dtype):
    x = torch.arange(12, dtype=dtype).reshape(3, 4)
    amounts = torch.tensor([0, 1, 2, 3], dtype=dtype)
    cases = [lambda t, a: t << 2, lambda t, a: t >> 1, lambda t, a: t << a, lambda t, a: t >> a, lambda t, a: 1 << a]
    for fn in cases:
        assert_exact(fn(x.to(FOO), amounts.to(FOO)).cpu(), fn(x, amounts))
    for shift in (lambda t, a: t.__ilshift__(a), lambda t, a: t.__irshift__(a), lambda t, a: t.__ilshift__(3)):
        expected, actual = x.clone(), x.to(FOO)
        shift(expected, amounts)
        assert shift(actual, amounts.to(FOO)) is actual
        assert_exact(actual.cpu(), expected)


def test_python_shift_of_floats_raises_like_cpu():
    with pytest.raises((RuntimeError, NotImplementedError)):
        torch.ones(3) << 1
    with pytest.raises(RuntimeError, match="bitwise_left_shift"):
        torch.ones(3, device=FOO) << 1


# A Python float is a float64 CPU scalar; it reaches the kernel in the compute dtype, so devices without
# fp64 (rusticl's llvmpipe) run these too.
POLYNOMIALS = [
    torch.special.chebyshev_polynomial_t,
    torch.special.chebyshev_polynomial_u,
    torch.special.hermite_polynomial_h,
    torch.special.laguerre_polynomial_l,
    torch.special.legendre_polynomial_p,
]


@pytest.mark.parametrize("fn", POLYNOMIALS, ids=lambda fn: fn.__name__)
def test_polynomials_of_a_python_float_degree(fn):
    x = torch.linspace(-1, 1, 9)
    torch.testing.assert_close(fn(x.to(FOO), 3.0).cpu(), fn(x, 3.0))


# ---- half computes in float32 --------------------------------------------------------------------------

# (fn, its float16 operands, the result): an intermediate overflows or underflows float16, the result does not.
HALF_INTERMEDIATE_CASES = {
    "hypot": (torch.hypot, [[30000.0, 3e-5], [40000.0, 4e-5]], [50000.0, 5e-5]),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=1e-4), [[1.0], [300.0], [300.0]], [10.0]),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=1e4), [[0.0], [1e-4], [1e4]], [1e-4]),
    "lerp": (lambda a, b: torch.lerp(a, b, 0.5), [[60000.0], [-60000.0]], [0.0]),
    "lerp_tensor_weight": (torch.lerp, [[60000.0], [-60000.0], [0.25]], [30000.0]),
}


@pytest.mark.parametrize("case", HALF_INTERMEDIATE_CASES.values(), ids=HALF_INTERMEDIATE_CASES.keys())
def test_half_intermediates_are_computed_in_float32(case):
    fn, operands, expected = case
    operands = [torch.tensor(values, dtype=torch.float16) for values in operands]
    expected = torch.tensor(expected, dtype=torch.float16)
    torch.testing.assert_close(fn(*operands), expected)
    torch.testing.assert_close(fn(*(t.to(FOO) for t in operands)).cpu(), expected)


# ---- many dims ----------------------------------------------------------------------------------------

RANK10 = (2,) * 10
PERMUTATION = (9, 7, 5, 3, 1, 0, 2, 4, 6, 8)


def rank10_operands(dtype: torch.dtype) -> list[torch.Tensor]:
    """Three (2,)*10 operands whose strides no single dim order makes contiguous, so no two dims coalesce:
    a contiguous one, a permuted one, and one sliced with a step in every dim."""
    g = torch.Generator().manual_seed(0)
    contiguous = (10 * torch.randn(RANK10, generator=g)).to(dtype)
    permuted = (10 * torch.randn(RANK10, generator=g)).to(dtype).permute(PERMUTATION)
    sliced = (10 * torch.randn((3,) * 10, generator=g)).to(dtype)[(slice(None, None, 2),) * 10]
    return [contiguous, permuted, sliced]


# Each gets the contiguous, permuted and sliced operands.
MANY_DIM_CASES = {
    "add": lambda a, b, c: a + b,
    "mul_sliced": lambda a, b, c: b * c,
    "where": lambda a, b, c: torch.where(a > 0, b, c),
    "addcmul": lambda a, b, c: torch.addcmul(a, b, c, value=3),
    "in_place_on_permuted": lambda a, b, c: b.mul_(c),
    "out_permuted": lambda a, b, c: torch.sub(a, c, out=b),
    "unary_on_sliced": lambda a, b, c: torch.neg(c),
    "broadcast_dim": lambda a, b, c: a + c[..., :1],
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16], ids=dtype_id)
@pytest.mark.parametrize("case", MANY_DIM_CASES.values(), ids=MANY_DIM_CASES.keys())
def test_more_dims_than_one_launch_takes(case, dtype):
    """A strided kernel takes at most 8 dims; TensorIterator cannot coalesce these 10, so the launcher
    splits the iteration into several launches."""
    cpu_operands = rank10_operands(dtype)
    foo_operands = [to_foo_keeping_layout(t) for t in cpu_operands]
    assert [t.stride() for t in foo_operands] == [t.stride() for t in cpu_operands]
    expected = case(*cpu_operands)
    actual = case(*foo_operands)
    assert_exact(actual.cpu(), expected)
    for foo, cpu in zip(foo_operands, cpu_operands):  # in place and out= write through the views
        assert_exact(foo.cpu(), cpu)


# ---- out= does not change the computation dtype --------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_16_bit_ops_round_before_a_wider_out_like_cpu(dtype, out_dtype, layout):
    # 33000 + 33000 overflows float16 (CPU gives inf); in bfloat16 the sum rounds to 8 bits of mantissa.
    a = torch.full((4, 3), 33000.0, dtype=dtype)
    b = torch.tensor([33000.0, 1.5, -7.25], dtype=dtype).expand(4, 3).contiguous()
    if layout == "transposed":
        a, b = a.t(), b.t()
    for fn in (torch.add, torch.mul, torch.sub, torch.maximum):
        expected = fn(a, b, out=torch.empty(0, dtype=out_dtype))
        actual = fn(a.to(FOO), b.to(FOO), out=torch.empty(0, dtype=out_dtype, device=FOO))
        assert_exact(actual.cpu(), expected)
