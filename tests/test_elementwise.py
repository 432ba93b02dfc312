"""The elementwise engine against the CPU: one table of operators driving every dtype the CPU supports,
every layout, and the functional, out= and in-place variants, with edge values; then type promotion,
CPU scalar operands, mixed devices, internal overlap and out= dtype checks, misaligned float16 views, and frexp's
mantissas and exponents. No test may fall back to the CPU.
"""

import functools
import math
import operator
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pytest
import torch
from conftest import DTYPES, FOO, assert_exact, dtype_id, run_like_cpu

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor
# NOTE: torch._C._nn holds the functions torch.nn.functional calls; unlike F.*, they take out=.
nn = torch._C._nn


@dataclass(frozen=True)
class Op:
    """One operator: `fn(*operands, **kwargs)` (plus out= when `out`), `inplace(*operands, **kwargs)` on
    the first operand, the value domain of each tensor operand (see `ordinary_values`), whether foo must
    match the CPU bit for bit (`exact`) or within assert_close's tolerance for the dtype, and whether the
    sign of a zero result is defined (`zero_sign`: not for max/min-like ops on +0 and -0, where the CPU's
    own answer depends on whether the element falls in a vectorised stretch)."""

    fn: Callable[..., Tensor]
    domains: tuple[str, ...] = ("real",)
    kwargs: Mapping[str, object] = field(default_factory=dict)
    inplace: Callable[..., Tensor] | None = None
    out: bool = True
    exact: bool = False
    zero_sign: bool = True


UNARY_OPS = {
    "abs": Op(torch.abs, inplace=Tensor.abs_, exact=True),
    "neg": Op(torch.neg, inplace=Tensor.neg_, exact=True),
    "sign": Op(torch.sign, inplace=Tensor.sign_, exact=True),
    "sgn": Op(torch.sgn, inplace=Tensor.sgn_, exact=True),
    "reciprocal": Op(torch.reciprocal, inplace=Tensor.reciprocal_, exact=True),
    "sqrt": Op(torch.sqrt, ("positive",), inplace=Tensor.sqrt_, exact=True),
    "rsqrt": Op(torch.rsqrt, ("positive",), inplace=Tensor.rsqrt_),
    "square": Op(torch.square, inplace=Tensor.square_, exact=True),
    "exp": Op(torch.exp, inplace=Tensor.exp_),
    "exp2": Op(torch.exp2, inplace=Tensor.exp2_),
    "expm1": Op(torch.expm1, inplace=Tensor.expm1_),
    "log": Op(torch.log, ("positive",), inplace=Tensor.log_),
    "log2": Op(torch.log2, ("positive",), inplace=Tensor.log2_),
    "log10": Op(torch.log10, ("positive",), inplace=Tensor.log10_),
    "log1p": Op(torch.log1p, ("positive",), inplace=Tensor.log1p_),
    "sin": Op(torch.sin, inplace=Tensor.sin_),
    "cos": Op(torch.cos, inplace=Tensor.cos_),
    "tan": Op(torch.tan, inplace=Tensor.tan_),
    "asin": Op(torch.asin, ("unit",), inplace=Tensor.asin_),
    "acos": Op(torch.acos, ("unit",), inplace=Tensor.acos_),
    "atan": Op(torch.atan, inplace=Tensor.atan_),
    "sinh": Op(torch.sinh, inplace=Tensor.sinh_),
    "cosh": Op(torch.cosh, inplace=Tensor.cosh_),
    "tanh": Op(torch.tanh, inplace=Tensor.tanh_),
    "asinh": Op(torch.asinh, inplace=Tensor.asinh_),
    "acosh": Op(torch.acosh, ("at_least_one",), inplace=Tensor.acosh_),
    "atanh": Op(torch.atanh, ("unit",), inplace=Tensor.atanh_),
    "erf": Op(torch.erf, inplace=Tensor.erf_),
    "erfc": Op(torch.erfc, inplace=Tensor.erfc_),
    "erfinv": Op(torch.erfinv, ("unit",), inplace=Tensor.erfinv_),
    "sigmoid": Op(torch.sigmoid, inplace=Tensor.sigmoid_),
    "logit": Op(torch.logit, ("probability",), inplace=Tensor.logit_),
    "logit_eps": Op(torch.logit, ("probability",), {"eps": 1e-6}, inplace=Tensor.logit_),
    "relu": Op(torch.relu, inplace=torch.relu_, out=False, exact=True, zero_sign=False),
    "gelu": Op(nn.gelu, inplace=nn.gelu_),
    "gelu_tanh": Op(nn.gelu, kwargs={"approximate": "tanh"}, inplace=nn.gelu_),
    "silu": Op(nn.silu, inplace=nn.silu_),
    "mish": Op(nn.mish, inplace=nn.mish_),
    "softplus": Op(nn.softplus),
    "softplus_beta_threshold": Op(nn.softplus, kwargs={"beta": 2.0, "threshold": 5.0}),
    "hardtanh": Op(
        nn.hardtanh, kwargs={"min_val": -2.0, "max_val": 3.0}, inplace=nn.hardtanh_, exact=True, zero_sign=False
    ),
    "hardsigmoid": Op(nn.hardsigmoid, inplace=nn.hardsigmoid_),
    "hardswish": Op(nn.hardswish, inplace=nn.hardswish_),
    "elu": Op(nn.elu, kwargs={"alpha": 0.5}, inplace=nn.elu_),
    "selu": Op(torch.selu, inplace=torch.selu_, out=False),
    "celu": Op(torch.celu, kwargs={"alpha": 0.7}, inplace=torch.celu_, out=False),
    "leaky_relu": Op(nn.leaky_relu, kwargs={"negative_slope": 0.2}, inplace=nn.leaky_relu_, exact=True),
    "logsigmoid": Op(nn.log_sigmoid),
    "threshold": Op(torch.threshold, kwargs={"threshold": 0.5, "value": -1.0}, inplace=torch.threshold_, exact=True),
    "floor": Op(torch.floor, inplace=Tensor.floor_, exact=True),
    "ceil": Op(torch.ceil, inplace=Tensor.ceil_, exact=True),
    "round": Op(torch.round, inplace=Tensor.round_, exact=True),
    "round_decimals_2": Op(torch.round, kwargs={"decimals": 2}, inplace=Tensor.round_, exact=True),
    "round_decimals_-1": Op(torch.round, kwargs={"decimals": -1}, inplace=Tensor.round_, exact=True),
    "trunc": Op(torch.trunc, inplace=Tensor.trunc_, exact=True),
    "frac": Op(torch.frac, inplace=Tensor.frac_, exact=True),
    "isnan": Op(torch.isnan, out=False, exact=True),
    "isinf": Op(torch.isinf, out=False, exact=True),
    "isfinite": Op(torch.isfinite, out=False, exact=True),
    "isposinf": Op(torch.isposinf, exact=True),
    "isneginf": Op(torch.isneginf, exact=True),
    "signbit": Op(torch.signbit, exact=True),
    "nan_to_num": Op(torch.nan_to_num, inplace=Tensor.nan_to_num_, exact=True),
    "nan_to_num_values": Op(
        torch.nan_to_num, kwargs={"nan": 1.5, "posinf": 100.0, "neginf": -100.0}, inplace=Tensor.nan_to_num_, exact=True
    ),
    "bitwise_not": Op(torch.bitwise_not, inplace=Tensor.bitwise_not_, exact=True),
    "logical_not": Op(torch.logical_not, inplace=Tensor.logical_not_, exact=True),
    "deg2rad": Op(torch.deg2rad, inplace=Tensor.deg2rad_),
    "rad2deg": Op(torch.rad2deg, inplace=Tensor.rad2deg_),
    "sinc": Op(torch.sinc, inplace=Tensor.sinc_),
    "positive": Op(torch.positive, out=False, exact=True),
    "clamp_scalar": Op(
        torch.clamp, kwargs={"min": -1.5, "max": 2.0}, inplace=Tensor.clamp_, exact=True, zero_sign=False
    ),
    "clamp_min_scalar": Op(
        torch.clamp_min, kwargs={"min": -1.5}, inplace=Tensor.clamp_min_, exact=True, zero_sign=False
    ),
    "clamp_max_scalar": Op(
        torch.clamp_max, kwargs={"max": 2.0}, inplace=Tensor.clamp_max_, exact=True, zero_sign=False
    ),
}

BINARY_OPS = {
    "add": Op(torch.add, ("real", "real"), inplace=Tensor.add_, exact=True),
    "add_alpha": Op(torch.add, ("real", "real"), {"alpha": 3}, inplace=Tensor.add_, exact=True),
    "add_scalar": Op(torch.add, kwargs={"other": 2.5}, inplace=Tensor.add_, exact=True),
    "sub": Op(torch.sub, ("real", "real"), inplace=Tensor.sub_, exact=True),
    "sub_alpha": Op(torch.sub, ("real", "real"), {"alpha": 3}, inplace=Tensor.sub_, exact=True),
    "rsub_alpha": Op(torch.rsub, ("real", "real"), {"alpha": 2}, out=False, exact=True),
    "mul": Op(torch.mul, ("real", "real"), inplace=Tensor.mul_, exact=True),
    "mul_scalar": Op(torch.mul, kwargs={"other": -1.5}, inplace=Tensor.mul_, exact=True),
    "div": Op(torch.div, ("real", "real"), inplace=Tensor.div_, exact=True),
    "div_scalar": Op(torch.div, kwargs={"other": 3}, inplace=Tensor.div_, exact=True),
    "div_trunc": Op(torch.div, ("real", "divisor"), {"rounding_mode": "trunc"}, inplace=Tensor.div_, exact=True),
    "div_floor": Op(torch.div, ("real", "divisor"), {"rounding_mode": "floor"}, inplace=Tensor.div_, exact=True),
    "floor_divide": Op(torch.floor_divide, ("real", "divisor"), inplace=Tensor.floor_divide_, exact=True),
    "remainder": Op(torch.remainder, ("real", "divisor"), inplace=Tensor.remainder_, exact=True),
    "remainder_scalar": Op(torch.remainder, kwargs={"other": -3}, inplace=Tensor.remainder_, exact=True),
    "fmod": Op(torch.fmod, ("real", "divisor"), inplace=Tensor.fmod_, exact=True),
    "fmod_scalar": Op(torch.fmod, kwargs={"other": 3}, inplace=Tensor.fmod_, exact=True),
    "pow": Op(torch.pow, ("real", "exponent"), inplace=Tensor.pow_),
    "pow_scalar_0": Op(torch.pow, kwargs={"exponent": 0}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_1": Op(torch.pow, kwargs={"exponent": 1}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_2": Op(torch.pow, kwargs={"exponent": 2}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_0.5": Op(torch.pow, kwargs={"exponent": 0.5}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_-1": Op(torch.pow, kwargs={"exponent": -1}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_3": Op(torch.pow, kwargs={"exponent": 3}, inplace=Tensor.pow_, exact=True),
    "pow_scalar_float_base": Op(lambda x, **out: torch.pow(2.5, x, **out), ("exponent",)),
    "pow_scalar_int_base": Op(lambda x, **out: torch.pow(3, x, **out), ("exponent",)),
    "float_power": Op(torch.float_power, ("real", "exponent"), inplace=Tensor.float_power_),
    "atan2": Op(torch.atan2, ("real", "real"), inplace=Tensor.atan2_),
    "hypot": Op(torch.hypot, ("real", "real"), inplace=Tensor.hypot_),
    "maximum": Op(torch.maximum, ("real", "real"), exact=True, zero_sign=False),
    "minimum": Op(torch.minimum, ("real", "real"), exact=True, zero_sign=False),
    "fmax": Op(torch.fmax, ("real", "real"), exact=True, zero_sign=False),
    "fmin": Op(torch.fmin, ("real", "real"), exact=True, zero_sign=False),
    **{
        name: Op(getattr(torch, name), ("real", "real"), inplace=getattr(Tensor, name + "_"), exact=True)
        for name in ["eq", "ne", "lt", "le", "gt", "ge"]
    },
    **{
        name + "_scalar": Op(getattr(torch, name), kwargs={"other": 0}, inplace=getattr(Tensor, name + "_"), exact=True)
        for name in ["eq", "ne"]
    },
    **{
        name + "_scalar": Op(
            getattr(torch, name), kwargs={"other": 0.5}, inplace=getattr(Tensor, name + "_"), exact=True
        )
        for name in ["lt", "le", "gt", "ge"]
    },
    **{
        name: Op(getattr(torch, name), ("real", "real"), inplace=getattr(Tensor, name + "_"), exact=True)
        for name in ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"]
    },
    "bitwise_left_shift": Op(
        torch.bitwise_left_shift, ("real", "shift"), inplace=Tensor.bitwise_left_shift_, exact=True
    ),
    "bitwise_right_shift": Op(
        torch.bitwise_right_shift, ("real", "shift"), inplace=Tensor.bitwise_right_shift_, exact=True
    ),
    "copysign": Op(torch.copysign, ("real", "real"), inplace=Tensor.copysign_, exact=True),
    "heaviside": Op(torch.heaviside, ("real", "real"), inplace=Tensor.heaviside_, exact=True),
    "nextafter": Op(torch.nextafter, ("real", "real"), inplace=Tensor.nextafter_, exact=True),
    "xlogy": Op(torch.xlogy, ("real", "positive"), inplace=Tensor.xlogy_),
    "logaddexp": Op(torch.logaddexp, ("real", "real")),
    "lerp_scalar_weight": Op(torch.lerp, ("real", "real"), {"weight": 0.3}, inplace=Tensor.lerp_),
    "clamp_min_tensor": Op(torch.clamp_min, ("real", "real"), inplace=Tensor.clamp_min_, exact=True, zero_sign=False),
    "clamp_max_tensor": Op(torch.clamp_max, ("real", "real"), inplace=Tensor.clamp_max_, exact=True, zero_sign=False),
    "masked_fill_scalar": Op(
        torch.masked_fill, ("real", "mask"), {"value": -7.5}, inplace=Tensor.masked_fill_, out=False
    ),
    "masked_fill_tensor": Op(
        torch.masked_fill, ("real", "mask"), {"value": torch.tensor(-7.5)}, inplace=Tensor.masked_fill_, out=False
    ),
}

TERNARY_OPS = {
    "clamp_tensor": Op(torch.clamp, ("real", "real", "real"), inplace=Tensor.clamp_, exact=True, zero_sign=False),
    "lerp_tensor_weight": Op(torch.lerp, ("real", "real", "unit"), inplace=Tensor.lerp_),
    "where": Op(torch.where, ("mask", "real", "real"), exact=True),
    "addcmul": Op(torch.addcmul, ("real", "real", "real"), {"value": 2}, inplace=Tensor.addcmul_),
    "addcdiv": Op(torch.addcdiv, ("real", "real", "real"), {"value": 0.5}, inplace=Tensor.addcdiv_),
}

OPS = {**UNARY_OPS, **BINARY_OPS, **TERNARY_OPS}

# ---- operand values --------------------------------------------------------------------------------

FLOAT_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e30, -1e30, 1e-30, -1e-30]
# Extra float edges at the ends of a domain (atanh(1) = inf, acosh(1) = 0, logit(0) = -inf).
DOMAIN_EDGES = {"unit": [1.0, -1.0], "at_least_one": [1.0], "probability": [0.0, 1.0]}


def int_edges(dtype: torch.dtype, domain: str) -> list[int]:
    info = torch.iinfo(dtype)
    if domain == "divisor":  # zero raises ZeroDivisionError, and min / -1 traps on x86
        return [1, -2, info.max]
    if domain == "exponent":
        return [0, 1]
    if domain == "shift":
        return [0, info.bits - 1]
    return [0, 1, -1, info.min, info.max]


def ordinary_values(n: int, dtype: torch.dtype, domain: str, g: torch.Generator) -> Tensor:
    """n float64 or int64 values of `domain`: real, positive, unit (-1, 1), at_least_one, probability (0, 1),
    divisor (for integers: no 0 or -1), exponent (for integers: 0 to 4), shift (0 to the bit width), mask."""
    if domain == "mask" or dtype == torch.bool:
        return torch.randint(0, 2, (n,), generator=g).bool()
    if not dtype.is_floating_point:
        low, high = {"exponent": (0, 5), "shift": (0, torch.iinfo(dtype).bits)}.get(domain, (-10, 11))
        if dtype == torch.uint8:
            low = max(low, 0)
        values = torch.randint(low, high, (n,), generator=g)
        if domain == "divisor":
            values[(values == 0) | (values == -1)] = 3
        return values
    u = torch.rand(n, generator=g, dtype=torch.float64)
    return {
        "positive": 10 * u + 0.01,
        "unit": 2 * u - 1,
        "at_least_one": 10 * u + 1,
        "probability": 0.998 * u + 0.001,
        "exponent": 6 * u - 3,
    }.get(domain, 3 * torch.randn(n, generator=g, dtype=torch.float64))


def operand_values(shape: tuple[int, ...], dtype: torch.dtype, domain: str, seed: int) -> Tensor:
    """A CPU tensor of `shape` whose first elements (in row-major order) are the edge values of dtype and
    domain, rotated by `seed` so that the operands of an op meet different edges, and the rest ordinary values."""
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    value_dtype = torch.bool if domain == "mask" else dtype
    values = ordinary_values(n, value_dtype, domain, g)
    if value_dtype == torch.bool:
        edges = [False, True]
    elif value_dtype.is_floating_point:
        edges = FLOAT_EDGES + DOMAIN_EDGES.get(domain, [])
    else:
        edges = [e for e in int_edges(value_dtype, domain) if value_dtype != torch.uint8 or e >= 0]
    k = min(len(edges), 3 * n // 4)  # a 0-dim or one-element operand gets an ordinary value
    shift = seed % len(edges)
    values[:k] = torch.tensor((edges[shift:] + edges[:shift])[:k], dtype=values.dtype)
    return values.to(value_dtype).reshape(shape)


@dataclass(frozen=True)
class Operand:
    """A view of a dense CPU base tensor; `on(device)` makes a fresh copy of the base there and views it."""

    base: Tensor
    view: Callable[[Tensor], Tensor]

    def on(self, device: torch.device | str) -> Tensor:
        return self.view(self.base.to(device, copy=True))


def identity(t: Tensor) -> Tensor:
    return t


# How each operand is laid out: (shape of the dense base, the view taken of it). With "broadcast", the
# first operand of an op with several is full-sized (so in-place works) and the others broadcast against it.
OPERAND_LAYOUTS = {
    "contiguous": [((4, 6), identity)],
    "transposed": [((6, 4), Tensor.t)],
    "sliced": [((8, 15), lambda t: t[::2, 1::3])],
    "broadcast": [((1, 5), lambda t: t.expand(4, 5))],
    "zero_dim": [((), identity)],
    "empty": [((0, 3), identity)],
}
BROADCAST_OPERANDS = [((4, 5), identity), ((5,), identity), ((4, 1), identity)]


def make_operands(op: Op, dtype: torch.dtype, layout: str) -> list[Operand]:
    layouts = OPERAND_LAYOUTS[layout] * len(op.domains)
    if layout == "broadcast" and len(op.domains) > 1:
        layouts = BROADCAST_OPERANDS
    operands = []
    for i, (domain, (base_shape, view)) in enumerate(zip(op.domains, layouts)):
        operand_dtype = torch.bool if domain == "mask" else dtype
        base = operand_values(base_shape, operand_dtype, "real", seed=100 + i)  # what the view leaves out
        target = base if layout == "broadcast" else view(base)  # an expanded view cannot be written
        target.copy_(operand_values(tuple(target.shape), operand_dtype, domain, seed=i))
        operands.append(Operand(base, view))
    return operands


# ---- comparisons -------------------------------------------------------------------------------------


def assert_matches(actual: Tensor, expected: Tensor, exact: bool, zero_sign: bool = True) -> None:
    """`actual` (on foo) against the CPU's `expected`: bit for bit (signs of zeros too, when `zero_sign`)
    for integers, bool, and `exact` ops in float32/float64; else within assert_close's default tolerance
    for the dtype, NaN where the CPU has NaN.

    NOTE: float16/bfloat16 are never compared bit for bit: foo computes them in float32 and rounds once,
    while some CPU kernels round intermediates to 16 bits too (the CPU's half add rounds alpha * other).
    """
    assert actual.device == FOO, f"the result is on {actual.device}"
    actual = actual.cpu()
    if not expected.dtype.is_floating_point or (exact and expected.dtype in (torch.float32, torch.float64)):
        if zero_sign:
            assert_exact(actual, expected)
        else:
            torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)
    else:
        torch.testing.assert_close(actual, expected, equal_nan=True)


def on_foo(value: object) -> object:
    return value.to(FOO) if isinstance(value, Tensor) else value


def foo_kwargs(kwargs: Mapping[str, object]) -> dict[str, object]:
    return {k: on_foo(v) for k, v in kwargs.items()}


@functools.cache
def cpu_supports(name: str, dtype: torch.dtype) -> bool:
    """Whether the CPU runs op `name` on operands of `dtype` (the table does not list dtypes)."""
    op = OPS[name]
    try:
        op.fn(*(operand_values((4,), dtype, d, seed=0) for d in op.domains), **op.kwargs)
    except (RuntimeError, TypeError):
        return False
    return True


def check_functional(op: Op, operands: list[Operand]) -> None:
    outcome = run_like_cpu(
        lambda: op.fn(*(o.on("cpu") for o in operands), **op.kwargs),
        lambda: op.fn(*(o.on(FOO) for o in operands), **foo_kwargs(op.kwargs)),
    )
    if outcome:
        assert_matches(*outcome, op.exact, op.zero_sign)


# An out tensor of the wrong shape, so the operator must resize it (PyTorch warns about that).
WRONG_OUT_SHAPE = (3,)


def check_out(op: Op, operands: list[Operand]) -> None:
    try:
        dtype = op.fn(*(o.on("cpu") for o in operands), **op.kwargs).dtype
    except RuntimeError:
        return  # check_functional checks that foo rejects it too
    cpu_out = torch.full(WRONG_OUT_SHAPE, 7, dtype=dtype)
    foo_out = cpu_out.to(FOO)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "An output with one or more elements was resized")
        outcome = run_like_cpu(
            lambda: op.fn(*(o.on("cpu") for o in operands), **op.kwargs, out=cpu_out),
            lambda: op.fn(*(o.on(FOO) for o in operands), **foo_kwargs(op.kwargs), out=foo_out),
        )
    if outcome:
        returned, _ = outcome
        assert returned is foo_out
        assert_matches(foo_out, cpu_out, op.exact, op.zero_sign)


def check_inplace(op: Op, operands: list[Operand]) -> None:
    """In place on the first operand's view; the whole base is compared, so elements outside the view
    must be left alone."""
    cpu_base, foo_base = operands[0].base.clone(), operands[0].base.to(FOO)
    outcome = run_like_cpu(
        lambda: op.inplace(operands[0].view(cpu_base), *(o.on("cpu") for o in operands[1:]), **op.kwargs),
        lambda: op.inplace(operands[0].view(foo_base), *(o.on(FOO) for o in operands[1:]), **foo_kwargs(op.kwargs)),
    )
    if outcome:
        returned, _ = outcome
        assert returned.data_ptr() == operands[0].view(foo_base).data_ptr()
        assert_matches(foo_base, cpu_base, op.exact, op.zero_sign)


def variants(op: Op) -> dict[str, Callable[[Op, list[Operand]], None]]:
    checks = {"functional": check_functional}
    if op.out:
        checks["out"] = check_out
    if op.inplace:
        checks["inplace"] = check_inplace
    return checks


def supported(names: list[str], dtypes: list[torch.dtype]) -> list[tuple[str, torch.dtype]]:
    """The (op, dtype) pairs the CPU runs: the others are not collected."""
    return [(name, dtype) for name in names for dtype in dtypes if cpu_supports(name, dtype)]


def case_id(case: tuple[str, torch.dtype]) -> str:
    return f"{case[0]}-{dtype_id(case[1])}"


@pytest.mark.parametrize("case", supported(list(OPS), DTYPES), ids=case_id)
def test_op_matches_cpu(case):
    """Every layout and variant (functional, out=, in place) of one op on one dtype; all their
    differences from the CPU are reported together, named by layout and variant."""
    name, dtype = case
    op = OPS[name]
    failures = []
    for layout in OPERAND_LAYOUTS:
        operands = make_operands(op, dtype, layout)
        for variant, check in variants(op).items():
            try:
                check(op, operands)
            except AssertionError as e:
                failures.append(f"{layout}, {variant}: {e}")
    assert not failures, "\n".join(failures)


TWO_TENSOR_OPS = [name for name, op in OPS.items() if len(op.domains) == 2]


@pytest.mark.parametrize("case", supported(TWO_TENSOR_OPS, DTYPES), ids=case_id)
def test_binary_op_on_every_pair_of_edge_values_matches_cpu(case):
    name, dtype = case
    op = OPS[name]
    # Long enough that every edge value of each operand is there (edges come first), then all pairs.
    a, b = (operand_values((32,), dtype, domain, seed=0)[:16] for domain in op.domains)
    a, b = a.repeat_interleave(16), b.repeat(16)
    outcome = run_like_cpu(
        lambda: op.fn(a, b, **op.kwargs), lambda: op.fn(a.to(FOO), b.to(FOO), **foo_kwargs(op.kwargs))
    )
    if outcome:
        assert_matches(*outcome, op.exact, op.zero_sign)


# masked_fill's mask must be on the op's device (as on CUDA); its 0-dim CPU value is tested below.
SCALAR_OPERAND_OPS = [name for name in TWO_TENSOR_OPS if "mask" not in OPS[name].domains]


@pytest.mark.parametrize("position", [0, 1], ids=["first", "second"])
@pytest.mark.parametrize("case", supported(SCALAR_OPERAND_OPS, [torch.float32, torch.int64]), ids=case_id)
def test_zero_dim_cpu_tensor_operand_matches_cpu(case, position):
    """A 0-dim CPU tensor may be mixed with foo tensors (it is passed by value), in either position."""
    name, dtype = case
    op = OPS[name]
    operands = [operand_values((4, 6), dtype, domain, seed=i) for i, domain in enumerate(op.domains)]
    operands[position] = operand_values((), dtype, op.domains[position], seed=7)
    foo_operands = [t if i == position else t.to(FOO) for i, t in enumerate(operands)]
    outcome = run_like_cpu(lambda: op.fn(*operands, **op.kwargs), lambda: op.fn(*foo_operands, **op.kwargs))
    if outcome:
        assert_matches(*outcome, op.exact, op.zero_sign)


# (op, dtype, which operand is 0-dim) for every op of two or three tensors.
ZERO_DIM_OPERAND_CASES = [
    (name, dtype, position)
    for name, dtype in supported(
        [name for name, op in OPS.items() if len(op.domains) > 1], [torch.float32, torch.int64]
    )
    for position in range(len(OPS[name].domains))
]


@pytest.mark.parametrize("case", ZERO_DIM_OPERAND_CASES, ids=lambda c: f"{case_id(c[:2])}-operand{c[2]}")
def test_zero_dim_foo_tensor_operand_matches_cpu(case):
    """A 0-dim foo tensor broadcast over the others (the kernel reads its one element once)."""
    name, dtype, position = case
    op = OPS[name]
    operands = [operand_values((4, 6), dtype, domain, seed=i) for i, domain in enumerate(op.domains)]
    operands[position] = operand_values((), operands[position].dtype, op.domains[position], seed=7)
    outcome = run_like_cpu(
        lambda: op.fn(*operands, **op.kwargs), lambda: op.fn(*[t.to(FOO) for t in operands], **foo_kwargs(op.kwargs))
    )
    if outcome:
        assert_matches(*outcome, op.exact, op.zero_sign)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32], ids=dtype_id)
def test_every_operand_an_expanded_element_matches_cpu(dtype):
    """Every input one element broadcast (the kernel reads each once, and has no vector operand)."""
    a, b = torch.tensor(3, dtype=dtype).expand(7, 9), torch.tensor(-2, dtype=dtype).expand(7, 9)
    for fn in [torch.mul, torch.add, lambda x, y: torch.where(x > y, x, y)]:
        outcome = run_like_cpu(lambda fn=fn: fn(a, b), lambda fn=fn: fn(a.to(FOO), b.to(FOO)))
        assert outcome is not None
        assert_matches(*outcome, exact=True)


# where's operands: each in turn a 0-dim foo tensor (or the other value a Python number); mixed dtypes.
WHERE_SCALAR_CASES = {
    "python_other": lambda m, x, s: torch.where(m, x, 0.5),
    "python_self": lambda m, x, s: torch.where(m, -2, x),
    "zero_dim_other": lambda m, x, s: torch.where(m, x, s),
    "zero_dim_self": lambda m, x, s: torch.where(m, s, x),
    "zero_dim_condition": lambda m, x, s: torch.where(m[0, 0], x, x * 2),
    "zero_dim_int_other": lambda m, x, s: torch.where(m, x, s.to(torch.int32)),
    "both_zero_dim": lambda m, x, s: torch.where(m, s, s + 1),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32], ids=dtype_id)
@pytest.mark.parametrize("case", WHERE_SCALAR_CASES.values(), ids=WHERE_SCALAR_CASES.keys())
def test_where_with_scalar_operands_matches_cpu(case, dtype):
    # Large enough that the kernel's work-items take whole vectors.
    mask = operand_values((300, 257), torch.bool, "mask", seed=1)
    x = operand_values((300, 257), dtype, "real", seed=2)
    s = torch.tensor(-7.5).to(dtype)
    outcome = run_like_cpu(lambda: case(mask, x, s), lambda: case(mask.to(FOO), x.to(FOO), s.to(FOO)))
    assert outcome is not None
    assert_matches(*outcome, exact=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.bfloat16], ids=dtype_id)
def test_masked_fill_with_a_zero_dim_cpu_value_matches_cpu(dtype):
    x = operand_values((4, 6), dtype, "real", seed=0)
    mask = operand_values((4, 6), torch.bool, "mask", seed=1)
    value = torch.tensor(-7.5)
    outcome = run_like_cpu(lambda: x.masked_fill(mask, value), lambda: x.to(FOO).masked_fill(mask.to(FOO), value))
    assert outcome is not None
    assert_matches(*outcome, exact=True)
    foo_x = x.to(FOO)
    foo_x.masked_fill_(mask.to(FOO), value)
    assert_matches(foo_x, outcome[1], exact=True)


# ---- type promotion ------------------------------------------------------------------------------------

PROMOTING_PAIRS = [
    (torch.int32, torch.float32),
    (torch.bool, torch.int16),
    (torch.uint8, torch.int8),
    (torch.float16, torch.float32),
    (torch.bfloat16, torch.float16),
    (torch.int64, torch.float64),
    (torch.bool, torch.float16),
    (torch.float32, torch.float64),
]
PROMOTING_OPS = ["add", "sub", "mul", "div", "maximum", "lt", "eq", "atan2", "pow", "remainder", "bitwise_xor", "where"]


@pytest.mark.parametrize(
    "dtypes",
    PROMOTING_PAIRS + [pair[::-1] for pair in PROMOTING_PAIRS],
    ids=lambda pair: f"{dtype_id(pair[0])}_{dtype_id(pair[1])}",
)
@pytest.mark.parametrize("name", PROMOTING_OPS)
def test_type_promotion_of_two_tensors_matches_cpu(name, dtypes):
    op = OPS[name]
    leading = [operand_values((4, 6), torch.bool, d, seed=2) for d in op.domains[:-2]]  # where's condition
    a, b = (operand_values((4, 6), dtype, op.domains[-1], seed=i) for i, dtype in enumerate(dtypes))
    outcome = run_like_cpu(
        lambda: op.fn(*leading, a, b), lambda: op.fn(*(t.to(FOO) for t in leading), a.to(FOO), b.to(FOO))
    )
    if outcome:
        assert_matches(*outcome, op.exact, op.zero_sign)


PYTHON_SCALAR_CASES = [
    (torch.int32, 2.5),
    (torch.int8, -2.5),
    (torch.bool, 3),
    (torch.bool, 2.5),
    (torch.bool, True),
    (torch.uint8, 7),
    (torch.int8, 100),
    (torch.int16, -3),
    (torch.float16, 1e5),
    (torch.bfloat16, 1 / 3),
    (torch.float32, 1e-40),
    (torch.float64, -(2**60)),
    (torch.int64, 2**40 + 1),
]
PYTHON_SCALAR_OPS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "lt": operator.lt,
    "eq": operator.eq,
    "xor": operator.xor,
}


@pytest.mark.parametrize("scalar_first", [False, True], ids=["tensor_op_scalar", "scalar_op_tensor"])
@pytest.mark.parametrize("case", PYTHON_SCALAR_CASES, ids=lambda case: f"{dtype_id(case[0])}_{case[1]}")
@pytest.mark.parametrize("fn", PYTHON_SCALAR_OPS.values(), ids=PYTHON_SCALAR_OPS.keys())
def test_python_scalar_operand_promotes_like_cpu(fn, case, scalar_first):
    """A Python number is a "wrapped number": it changes the result dtype only across categories."""
    dtype, scalar = case
    a = operand_values((4, 6), dtype, "divisor", seed=0)

    def call(t: Tensor) -> Tensor:
        return fn(scalar, t) if scalar_first else fn(t, scalar)

    outcome = run_like_cpu(lambda: call(a), lambda: call(a.to(FOO)))
    if outcome:
        assert_matches(*outcome, exact=fn is not operator.pow)


@pytest.mark.parametrize("scalar_dtype", [torch.float64, torch.int64, torch.bool, torch.float16], ids=dtype_id)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.uint8, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("device", ["cpu", "foo"])
def test_zero_dim_tensor_operand_promotes_like_cpu(device, dtype, scalar_dtype):
    """0-dim tensors, on the CPU or on foo, change the result dtype only across categories."""
    a = operand_values((4, 6), dtype, "real", seed=0)
    s = torch.tensor(-3.75).to(scalar_dtype)
    outcome = run_like_cpu(lambda: a * s, lambda: a.to(FOO) * s.to(device))
    assert outcome is not None
    assert_matches(*outcome, exact=True)


# ---- devices, overlap and out= checks ---------------------------------------------------------------


@pytest.mark.parametrize("cpu_shape", [(4,), (1,), (2, 4)], ids=str)
@pytest.mark.parametrize(
    "name", ["add", "mul", "atan2", "lt", "where", "addcmul", "clamp_tensor", "lerp_tensor_weight"]
)
def test_non_zero_dim_cpu_tensor_operand_is_rejected(name, cpu_shape):
    op = OPS[name]
    for position, domain in enumerate(op.domains):
        operands = [operand_values((2, 4), torch.float32, d, seed=0).to(FOO) for d in op.domains]
        operands[position] = operand_values(cpu_shape, torch.float32, domain, seed=0)
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            op.fn(*operands, **op.kwargs)


def test_out_tensor_on_the_cpu_is_rejected():
    a = torch.ones(3, device=FOO)
    with pytest.raises(RuntimeError, match="device"):
        torch.add(a, a, out=torch.empty(3))


# Each gets torch.arange(6.0) on the device.
OVERLAP_CASES = {
    "expanded_in_place": lambda x: x[:3].expand(3, 3).add_(1),
    "expanded_unary_in_place": lambda x: x[:3].expand(3, 3).exp_(),
    "expanded_out": lambda x: torch.mul(x.view(2, 3), 2, out=x[:3].expand(2, 3)),
    "partial_overlap_out": lambda x: torch.add(x[:-1], 1, out=x[1:]),
    "partial_overlap_unary_out": lambda x: torch.neg(x[1:], out=x[:-1]),
    "partial_overlap_in_place": lambda x: x[1:].mul_(x[:-1]),
    "where_out_overlaps_input": lambda x: torch.where(x[1:] > 2, x[1:], 0.0, out=x[:-1]),
}


@pytest.mark.parametrize("case", OVERLAP_CASES.values(), ids=OVERLAP_CASES.keys())
def test_internal_overlap_is_rejected_like_cpu(case):
    x = torch.arange(6.0)
    assert run_like_cpu(lambda: case(x.clone()), lambda: case(x.to(FOO)), same_message=True) is None


# Each gets a square tensor and works on it in place.
FULL_OVERLAP_CASES = {
    "out_is_input": lambda x: torch.add(x, 1, out=x),
    "out_is_both_inputs": lambda x: torch.mul(x, x, out=x),
    "in_place_with_self": lambda x: x.sub_(x),
    "transposed_in_place_with_self": lambda x: x.t().mul_(x.t()),
    "where_out_is_input": lambda x: torch.where(x > 0, x, x * 3, out=x),
    "masked_fill_in_place": lambda x: x.masked_fill_(x < 0, -1.5),
    "clamp_in_place_with_tensor_bounds": lambda x: x.clamp_(x.flip(0), x.flip(1)),
}


# 4: one element a work-item. 300: whole vectors, where the kernel's compiler vectorizes a work-item's
# loop (a contiguous kernel declares its output not to alias its inputs, which exact aliasing keeps true
# element by element).
@pytest.mark.parametrize("size", [4, 300])
@pytest.mark.parametrize("case", FULL_OVERLAP_CASES.values(), ids=FULL_OVERLAP_CASES.keys())
def test_exact_aliasing_is_allowed_like_cpu(case, size):
    x = operand_values((size, size), torch.float32, "real", seed=0)
    cpu_x, foo_x = x.clone(), x.to(FOO)
    case(cpu_x)
    case(foo_x)
    assert_matches(foo_x, cpu_x, exact=True)


OUT_DTYPE_CASES = {
    "float_into_int": (torch.add, torch.float32, torch.int32),
    "float_into_bool": (torch.mul, torch.float64, torch.bool),
    "int_into_bool": (torch.add, torch.int64, torch.bool),
    "true_division_into_int": (torch.div, torch.int32, torch.int32),
    "atan2_of_int_into_int": (torch.atan2, torch.int64, torch.int64),
    "int_into_float": (torch.add, torch.int32, torch.float32),
    "float_into_half": (torch.mul, torch.float32, torch.float16),
    "comparison_into_float": (torch.lt, torch.float32, torch.float32),
    "comparison_into_int": (torch.eq, torch.int8, torch.int64),
    "logical_into_uint8": (torch.logical_and, torch.bool, torch.uint8),
}


@pytest.mark.parametrize("case", OUT_DTYPE_CASES.values(), ids=OUT_DTYPE_CASES.keys())
def test_out_dtype_is_checked_like_cpu(case):
    """out= may have another dtype than the result only when the result can be cast to it."""
    fn, dtype, out_dtype = case
    a, b = (operand_values((4, 6), dtype, "divisor", seed=i) for i in range(2))
    cpu_out = torch.zeros(4, 6, dtype=out_dtype)
    foo_out = cpu_out.to(FOO)
    outcome = run_like_cpu(
        lambda: fn(a, b, out=cpu_out), lambda: fn(a.to(FOO), b.to(FOO), out=foo_out), same_message=True
    )
    if outcome:
        assert_matches(foo_out, cpu_out, exact=True)


@pytest.mark.parametrize("name", ["exp", "sigmoid", "sqrt"])
def test_unary_float_op_on_int_into_int_out_is_rejected_like_cpu(name):
    a = operand_values((4, 6), torch.int64, "real", seed=0)
    fn = OPS[name].fn
    outcome = run_like_cpu(
        lambda: fn(a, out=torch.zeros(4, 6, dtype=torch.int64)),
        lambda: fn(a.to(FOO), out=torch.zeros(4, 6, dtype=torch.int64, device=FOO)),
        same_message=True,
    )
    assert outcome is None


def test_every_op_has_a_row_with_a_dtype_the_cpu_supports():
    """Guards the table itself: a row that the CPU rejects for every dtype would be skipped silently."""
    assert [name for name in OPS if not any(cpu_supports(name, dtype) for dtype in DTYPES)] == []


# ---- misaligned float16 operands ---------------------------------------------------------------------


@pytest.mark.parametrize("offset", range(1, 8))
@pytest.mark.parametrize("n", [5, 15, 16, 17, 40])
def test_float16_views_starting_mid_vector_match_cpu(offset, n):
    # Contiguous float16 views that start 2..14 bytes into a 16-byte vector (PoCL's vector half loads
    # require 16-byte alignment: these crashed the process).
    base_a = torch.randn(n + offset, dtype=torch.float64).half()
    base_b = torch.randn(n + offset, dtype=torch.float64).half()
    a, b = base_a.to(FOO)[offset:], base_b.to(FOO)[offset:]
    expected = torch.maximum(base_a[offset:], base_b[offset:])
    torch.testing.assert_close(torch.maximum(a, b).cpu(), expected, rtol=0, atol=0)
    torch.maximum(a, b, out=a)
    torch.testing.assert_close(a.cpu(), expected, rtol=0, atol=0)
    filled = torch.empty(n + offset, dtype=torch.float16, device=FOO)[offset:].uniform_()
    assert ((filled >= 0) & (filled <= 1)).all().item()


# ---- frexp -------------------------------------------------------------------------------------------


def frexp_operand(dtype: torch.dtype, denormals: bool) -> Tensor:
    """Zeros, infinities, NaN and normal numbers from the smallest to the largest; or denormals only."""
    info = torch.finfo(dtype)
    if denormals:
        values = [info.tiny / 2, -info.tiny / 8, info.tiny * info.eps, -info.tiny * info.eps * 3, info.tiny * 0.7]
    else:
        values = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 3.0, -7.25, 1e-3, 1234.5]
        values += [info.max, -info.max, info.tiny, -info.tiny, info.tiny * 3]
    return torch.tensor(values, dtype=dtype)


@pytest.mark.parametrize("denormals", [False, True], ids=["normal", "denormal"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=dtype_id)
def test_frexp_matches_cpu(dtype, denormals):
    """Mantissas in [0.5, 1) with the input's sign (zeros, infinities and NaN themselves) and int32 exponents,
    bit for bit, from the functional and the out= variant."""
    x = frexp_operand(dtype, denormals)
    expected = torch.frexp(x)
    actual = torch.frexp(x.to(FOO))
    out = (torch.empty(0, dtype=dtype, device=FOO), torch.empty(0, dtype=torch.int32, device=FOO))
    torch.frexp(x.to(FOO), out=out)
    for mantissa, exponent in (actual, out):
        assert_exact(mantissa.cpu(), expected.mantissa)
        assert_exact(exponent.cpu(), expected.exponent)


def test_frexp_of_integers_raises_like_cpu():
    x = torch.tensor([1, 2, 3])
    assert run_like_cpu(lambda: torch.frexp(x), lambda: torch.frexp(x.to(FOO)), same_message=True) is None


# ---- vectorised float math ---------------------------------------------------------------------------------------

SWEEP = torch.cat([torch.linspace(-30, 30, 60001), torch.linspace(-9000, 9000, 20001), torch.arange(-10.5, 11.0, 0.5)])
# 252.89821 and 505.79642 lie near multiples of pi/2, where sin (tan) needs pi/2 to more than float precision.
SWEEP_EDGES = torch.tensor(
    [8192.0, 8192.5, -1e6, 3e38, 1e-30, -0.0, math.inf, -math.inf, math.nan, 252.89821, -505.79642, -1.0, -0.0]
)
# Float kernels that run on vectors through foo's own math (kernels_cl/vector_math.clh) or PoCL's vector builtins
# where the scalar ones are 8-30x slower: name -> (op, the sweep mapped into its domain).
VECTORISED = {
    "sin": (torch.sin, None),
    "cos": (torch.cos, None),
    "tan": (torch.tan, None),
    "sinc": (torch.sinc, None),
    "erf": (torch.erf, None),
    "tanh": (torch.tanh, None),
    "mish": (torch.nn.functional.mish, None),
    "gelu": (torch.nn.functional.gelu, None),
    "round": (torch.round, None),
    "lgamma": (torch.lgamma, None),
    "logit": (lambda x: torch.logit(x, eps=1e-4), torch.sigmoid),
    "fmod": (lambda x: torch.fmod(x, 0.7), None),
    "remainder": (lambda x: torch.remainder(x, -2.5), None),
}
# Ops whose reference is their float64 result: the CPU's float32 gelu overflows to inf at x = 3e38 where
# its AVX-512 kernels run (pthread-skylake-avx512-AMD EPYC; its AVX2 ones give 3e38, as foo does).
EXACT_REFERENCE = {"gelu"}


def test_float_tanh_within_three_epsilons_and_one():
    """vector_math.clh's rational tanh against float64, relative error in float32 epsilons: across [-10, 10] (past
    its clamp, where it must stay within [-1, 1]), near its switch to x at |x| = 4e-4, on infinities and NaN."""
    x = torch.cat([torch.linspace(-10, 10, 200001), torch.linspace(-1e-3, 1e-3, 20001), SWEEP_EDGES])
    actual, expected = torch.tanh(x.to(FOO)).cpu().double(), torch.tanh(x.double())
    error = (
        (actual - expected).abs() / (torch.finfo(torch.float32).eps * expected.abs().clamp(min=1e-30))
    ).nan_to_num()
    assert error.max() <= 3, f"{error.max():.2f} epsilons at x = {x[error.argmax()]}"
    assert actual.nan_to_num().abs().max() <= 1
    assert torch.equal(actual.isnan(), x.isnan())


@pytest.mark.parametrize("name", VECTORISED)
def test_vectorised_float_math_matches_cpu_on_a_dense_sweep(name):
    """Blocks of lanes through each op's range, past |x| = 8192 where sin, cos and tan take the builtin lane by lane,
    and the edges (a block holding both); zeros keep the CPU's sign."""
    op, domain = VECTORISED[name]
    x = torch.cat([SWEEP, SWEEP_EDGES])
    x = domain(x) if domain else x
    actual, expected = op(x.to(FOO)).cpu(), op(x.double()).float() if name in EXACT_REFERENCE else op(x)
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=2e-6, equal_nan=True)
    zeros = expected == 0
    if name != "gelu":  # foo's x * Phi(x) is -0 for x = -0 and below -4; CPU's is +0
        assert torch.equal(actual[zeros].signbit(), expected[zeros].signbit()), "signs of zeros differ"
