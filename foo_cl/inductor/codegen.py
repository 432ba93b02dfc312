"""Inductor's foo backend: fused pointwise and reduction kernels emitted as OpenCL C.

Kernels follow Inductor's SIMD model with one flattened pointwise range ("x") and at most one
reduction range ("r0_"). Their code is written once for values of FOO_W lanes
(kernels_cl/inductor.clh), consecutive iterations of one range (the reduction range in reductions
over rows, the pointwise range elsewhere): OpenCL vectors (float8, float16) at widths 8 and 16,
scalars at width 1.
CPU compilers do not vectorise a scalar loop's math functions, the vector forms they have.
- A pointwise kernel's work-item takes elements from foo's grid loop (kernels_cl/common.clh): on
  CPU devices a contiguous range, 16 lanes at a time with the rest one at a time; elsewhere one
  element at a time, neighbouring work-items taking neighbouring elements.
- A reduction's work-item takes whole rows and walks each in blocks of 16 lanes, accumulating lane
  by lane (its last block's lanes past the row's end left out), as Triton's looped reductions do
  with blocks; the lanes combine after the loop. Inductor splits long reductions to few outputs
  into two kernels, partial reductions of slices and their reduction.
- A reduction whose reads are contiguous along its outputs rather than its rows (column sums, a
  bias gradient's x.sum(0)) goes like a pointwise kernel over its outputs instead, each output's
  column a loop of its own: 8 neighbouring outputs are the lanes, so a turn of the loop reads one
  vector of a row, and each lane's accumulator is its own output. On CPU devices a turn takes 8
  such blocks, 64 consecutive elements of the row.
Contiguous reads and writes are vector loads and stores (every other element: two loads and a
shuffle), others go lane by lane, as do ops with no vector form. Where the lanes' distances are
constants only within rows of the output (rows of other lengths than multiples of 16), blocks within
a row take the vector forms; masked reads (cat's, padding's) take them in blocks whose lanes all
read. Half and bfloat16 values compute in float32, as foo's own kernels do. Matmul, convolution,
attention, sorting and whatever else Inductor does not lower to loops run as calls to foo's ATen
kernels (extern kernels and fallbacks).

What Inductor uses, registered by register() (foo_cl.inductor's import hook): OpenCLScheduling, the
device scheduling; WrapperCodegen, Python wrapper code calling foo_cl.inductor.runtime.FooKernel;
FooDeviceOpOverrides; and CodegenVersion, which puts this code generator in Inductor's cache keys.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import operator
import os
from pathlib import Path
from typing import Any, NamedTuple

import sympy
import torch
from torch._inductor import config, decomposition, ir, lowering, scheduler
from torch._inductor.codegen.common import (
    CSE,
    BackendFeature,
    CSEVariable,
    DeferredLine,
    DeviceOpOverrides,
    IndentedBuffer,
    OpOverrides,
    register_backend_for_device,
    register_device_op_overrides,
)
from torch._inductor.codegen.simd import IterationRangesEntry, SIMDKernel, SIMDScheduling
from torch._inductor.codegen.wrapper import PythonWrapperCodegen
from torch._inductor.codegen.wrapper_fxir import WrapperFxCodegen
from torch._inductor.custom_graph_pass import CustomGraphModulePass
from torch._inductor.dtype_propagation import DtypePropagationOpsHandler
from torch._inductor.graph import GraphLowering
from torch._inductor.utils import get_bounds_index_expr, get_fused_kernel_name, get_kernel_metadata, sympy_subs
from torch._inductor.virtualized import V, ops
from torch.utils._ordered_set import OrderedSet
from torch.utils._sympy.functions import FloorDiv, Identity, ModularIndexing
from torch.utils._sympy.printers import ExprPrinter
from torch.utils._sympy.symbol import SymT, symbol_is_type

from foo_cl import _C
from foo_cl.inductor.runtime import COLUMN_GROUP, COLUMNS, ELEMENTS, LANES, ROWS

# dtype -> (C type of a value in a kernel, C type of a buffer element). float16 and bfloat16
# compute in float; bool is stored as uchar (OpenCL kernels take no bool pointers).
_TYPES: dict[torch.dtype, tuple[str, str]] = {
    torch.float32: ("float", "float"),
    torch.float64: ("double", "double"),
    torch.float16: ("float", "half"),
    torch.bfloat16: ("float", "ushort"),
    torch.int8: ("char", "char"),
    torch.uint8: ("uchar", "uchar"),
    torch.int16: ("short", "short"),
    torch.uint16: ("ushort", "ushort"),
    torch.int32: ("int", "int"),
    torch.uint32: ("uint", "uint"),
    torch.int64: ("long", "long"),
    torch.uint64: ("ulong", "ulong"),
    torch.bool: ("bool", "uchar"),
}


def _types(dtype: torch.dtype) -> tuple[str, str]:
    if dtype not in _TYPES:
        raise NotImplementedError(f"foo-cl: compiled kernels do not support {dtype}")
    return _TYPES[dtype]


def value_type(dtype: torch.dtype) -> str:
    return _types(dtype)[0]


def lane_type(dtype: torch.dtype) -> str:
    """The C type of a lane of a pointwise kernel's value (kernels_cl/inductor.clh: FOO_V): bool is
    an int, 0 or 1, so that vector comparisons and selects work on it."""
    return "int" if dtype == torch.bool else value_type(dtype)


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _literal(value: bool | float, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "true" if value else "false"
    if dtype.is_floating_point:
        value = float(value)
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "(-INFINITY)"
        text = repr(value)
        text = text if dtype == torch.float64 else f"{text}f"
        return f"({text})" if value < 0 else text
    text = f"{int(value)}L" if dtype in (torch.int64, torch.uint64) else str(int(value))
    return f"({text})" if int(value) < 0 else text


class OpenCLExprPrinter(ExprPrinter):
    """Index and size expressions (sympy) as OpenCL C, in the kernel's index type (long)."""

    def _operand(self, x: sympy.Expr) -> str:
        """x printed as one operand of an operator: a sum such as `-a + b` must not become `-(-a) + b`."""
        return f"({self.doprint(x)})"

    def _unsigned(self, x: sympy.Expr) -> str | None:
        """x as an unsigned integer when it is never negative: division and remainder by constants
        are then shifts, masks and multiplies, which CPU compilers vectorise (signed 64-bit ones made
        a broadcast add 4x slower). 32 bits where every index of the kernel fits in 31."""
        if not x.is_nonnegative:
            return None
        narrow = getattr(V.kernel, "narrow_indices", False)
        return f"({'uint' if narrow else 'ulong'})({self.doprint(x)})"

    def _print_FloorDiv(self, expr: sympy.Expr) -> str:
        x, div = expr.args
        unsigned = self._unsigned(x) if div.is_positive else None
        if unsigned is not None:
            return f"((long)({unsigned} / {self._operand(div)}))"
        return f"FOO_FLOORDIV_INT({self.doprint(x)}, {self.doprint(div)})"

    def _print_ModularIndexing(self, expr: sympy.Expr) -> str:
        x, div, mod = expr.args
        unsigned = self._unsigned(x) if div.is_positive and mod.is_positive else None
        if unsigned is not None:
            quotient = unsigned if div == 1 else f"{unsigned} / {self._operand(div)}"
            return f"((long)({quotient} % {self._operand(mod)}))"
        text = self.doprint(x)
        if div != 1:
            text = f"FOO_FLOORDIV_INT({text}, {self.doprint(div)})"
        return f"FOO_MOD_INT({text}, {self.doprint(mod)})"

    def _print_CleanDiv(self, expr: sympy.Expr) -> str:
        return self._print_FloorDiv(expr)

    def _print_min_max(self, expr: sympy.Expr, fn: str) -> str:
        # NOTE: long operands throughout: OpenCL's min and max are ambiguous on mixed types.
        text = f"(long)({self.doprint(expr.args[0])})"
        for arg in expr.args[1:]:
            text = f"{fn}({text}, (long)({self.doprint(arg)}))"
        return text

    def _print_Min(self, expr: sympy.Expr) -> str:
        return self._print_min_max(expr, "min")

    def _print_Max(self, expr: sympy.Expr) -> str:
        return self._print_min_max(expr, "max")

    def _print_Abs(self, expr: sympy.Expr) -> str:
        x = self._operand(expr.args[0])
        return f"({x} < 0 ? -{x} : {x})"

    def _print_Where(self, expr: sympy.Expr) -> str:
        c, p, q = (self._operand(a) for a in expr.args)
        return f"({c} ? {p} : {q})"

    def _print_ToFloat(self, expr: sympy.Expr) -> str:
        return f"((double){self._operand(expr.args[0])})"

    def _print_IntTrueDiv(self, expr: sympy.Expr) -> str:
        lhs, rhs = (self._operand(a) for a in expr.args)
        return f"((double){lhs} / (double){rhs})"

    def _print_FloatTrueDiv(self, expr: sympy.Expr) -> str:
        lhs, rhs = (self._operand(a) for a in expr.args)
        return f"({lhs} / {rhs})"

    def _print_PowByNatural(self, expr: sympy.Expr) -> str:
        base, exp = (self.doprint(a) for a in expr.args)
        return f"foo_ipow({base}, {exp})"

    def _print_FloorToInt(self, expr: sympy.Expr) -> str:
        return f"((long)floor({self.doprint(expr.args[0])}))"

    def _print_CeilToInt(self, expr: sympy.Expr) -> str:
        return f"((long)ceil({self.doprint(expr.args[0])}))"

    def _print_TruncToInt(self, expr: sympy.Expr) -> str:
        return f"((long)trunc({self.doprint(expr.args[0])}))"

    def _print_RoundToInt(self, expr: sympy.Expr) -> str:
        return f"((long)rint({self.doprint(expr.args[0])}))"

    def _print_Identity(self, expr: sympy.Expr) -> str:
        return self._operand(expr.args[0])

    def _print_Float(self, expr: sympy.Expr) -> str:
        return repr(float(expr))

    def _print_Rational(self, expr: sympy.Expr) -> str:
        return f"({int(expr.p)}.0 / {int(expr.q)}.0)"


_printer = OpenCLExprPrinter()


def _nan_kept(x: CSEVariable | str, call: str) -> str:
    """call, a float function of x alone, kept NaN where x is NaN on scalar lanes (kernels_cl/inductor.clh)."""
    return f"FOO_NAN_KEPT({x}, {call})"


def _lanes_equal(*values: Any) -> bool:
    """Whether each value is one number in every lane: a Python number, or a variable whose lanes are
    known equal (a load of one element, a constant, an op of such values: _uniform_value)."""
    return all(isinstance(v, (int, float)) or getattr(v, "step", None) == 0 for v in values)


def _scalar(v: Any, dtype: torch.dtype) -> str:
    """A value of equal lanes (_lanes_equal) as a scalar C expression of its lanes' type."""
    return f"(({lane_type(dtype)}){_literal(v, dtype)})" if isinstance(v, (int, float)) else _lane(v, 0)


def _uniform_value(dtype: torch.dtype, scalar: str) -> CSEVariable:
    """A value of `dtype` whose lanes all hold `scalar`, a scalar C expression computed once for the
    lanes. NOTE: per-channel math (batch_norm's rsqrt(var / n + eps)) was computed on every lane: the
    compiled batch_norm + ReLU of 16x16x32x32 took 81-113 us that way, 62-96 us computed once, in
    alternating rounds (pthread-skylake-avx512-AMD EPYC)."""
    kernel = V.kernel
    var = kernel.cse.generate(kernel.compute, f"FOO_SPLAT({lane_type(dtype)}, {scalar})", dtype=dtype)
    var.known_lanes(_lane(var, 0), 0)
    return var


def _scalar_float_op(*args: Any) -> torch.dtype | None:
    """The dtype of an op of `args` that is computed once for the lanes (_uniform_value): floating
    values of one dtype (no conversions), each of equal lanes (_lanes_equal), or None."""
    dtypes = {_dtype_of(a) for a in args if not isinstance(a, (int, float))}
    if len(dtypes) != 1 or not _lanes_equal(*args):
        return None
    (dtype,) = dtypes
    return dtype if dtype in (torch.float32, torch.float64) else None


def _builtin(name: str):
    """An OpenCL C math builtin of floating arguments (one alone: NaN kept, _nan_kept)."""

    def fn(*args: CSEVariable) -> str | CSEVariable:
        dtype = _scalar_float_op(*args)
        if dtype is not None and len(args) == 1:
            x = _scalar(args[0], dtype)
            return _uniform_value(dtype, f"FOO_NAN_OR({x}, {name}({x}))")
        call = f"{name}({', '.join(str(a) for a in args)})"
        return _nan_kept(args[0], call) if len(args) == 1 else call

    fn.__name__ = name
    return staticmethod(fn)


def _vectorised(name: str):
    """A float function of kernels_cl/vector_math.clh, FOO_<NAME> at the kernel's width (CPU compilers leave
    the builtin to one element at a time); float64 takes the builtin."""

    def fn(x: CSEVariable) -> str:
        return _nan_kept(x, f"{name}({x})" if _dtype_of(x) == torch.float64 else f"FOO_{name.upper()}({x})")

    fn.__name__ = name
    return staticmethod(fn)


class OpenCLOverrides(OpOverrides):
    """Inductor's ops as OpenCL C expressions on values of FOO_W lanes (vectors in reductions and
    in CPU devices' pointwise kernels, scalars elsewhere: kernels_cl/inductor.clh). OpenCL C has no
    implicit conversions between vector types, so operands convert to their common type first; ops
    with no vector form (foo's special functions, integer powers) run lane by lane."""

    @staticmethod
    def constant(value: bool | float, dtype: torch.dtype) -> CSEVariable:
        literal = str(int(value)) if dtype == torch.bool else _literal(value, dtype)
        kernel = V.kernel
        lanes = _Lanes(f"FOO_SPLAT({lane_type(dtype)}, {literal})", f"(({lane_type(dtype)}){literal})", 0)
        return kernel.generate_lanes(kernel.compute, lanes, dtype)

    @staticmethod
    def to_dtype(
        x: CSEVariable, dtype: torch.dtype, src_dtype: torch.dtype | None = None, use_compute_types: bool = True
    ) -> str | CSEVariable:
        if dtype == torch.bool:
            return f"FOO_BOOL({x} != {_zero(x)})"
        if dtype in (torch.float16, torch.bfloat16):
            # Rounded to the type (values of these dtypes compute in float); a store to a buffer of
            # the type takes the unrounded value, which it rounds alike (_lanes_store).
            kernel = V.kernel
            unrounded = str(x) if _dtype_of(x) == torch.float32 else f"FOO_CVT(float, {x})"
            rounding = "FOO_ROUND_TO_HALF" if dtype == torch.float16 else "FOO_ROUND_TO_BFLOAT16"
            var = kernel.cse.generate(kernel.compute, f"{rounding}({unrounded})", dtype=dtype)
            var.rounded_from = (dtype, unrounded)
            return var
        if dtype == torch.uint8 and src_dtype is not None and src_dtype.is_floating_point:
            return f"FOO_CVT(uchar, FOO_CVT(long, {x}))"  # c10 converts through int64
        return f"FOO_CVT({lane_type(dtype)}, {x})"

    @staticmethod
    def to_dtype_bitcast(x: CSEVariable, dtype: torch.dtype, src_dtype: torch.dtype) -> str:
        """x's bits as dtype. float16 and bfloat16 values compute in float: their bits are those of
        the value rounded to the type (which it holds already)."""
        if src_dtype == torch.float16:
            bits = f"FOO_HALF_BITS(FOO_CVT(float, {x}))"
        elif src_dtype == torch.bfloat16:
            bits = f"FOO_FLOAT_TO_BF16(FOO_CVT(float, {x}))"
        else:
            bits = f"FOO_CVT({lane_type(src_dtype)}, {x})"
        if dtype == torch.float16:
            return f"FOO_HALF_FROM_BITS(FOO_AS(ushort, {bits}))"
        if dtype == torch.bfloat16:
            return f"FOO_BF16_TO_FLOAT(FOO_AS(ushort, {bits}))"
        return f"FOO_AS({lane_type(dtype)}, {bits})"

    @staticmethod
    def index_expr(expr: sympy.Expr, dtype: torch.dtype) -> str:
        kernel, bounds = V.kernel, get_bounds_index_expr(expr)
        lanes = kernel.lanes_index(expr)
        var = kernel.generate_lanes(kernel.compute, lanes, torch.int64, bounds=bounds)
        if dtype == torch.int64:
            return var
        converted = OpenCLOverrides.to_dtype(var, dtype)
        if dtype == torch.int32 and lanes.first is not None:  # Inductor's int32 indices fit
            return kernel.generate_lanes(kernel.compute, _Lanes(converted, f"(int)({lanes.first})", lanes.step), dtype)
        return kernel.cse.generate(kernel.compute, converted, bounds=bounds, dtype=dtype)

    @staticmethod
    def masked(mask: CSEVariable, body: Any, other: Any) -> CSEVariable:
        """body() in the lanes where mask holds, else other: the body runs in every lane, its loads
        only where the mask (and every enclosing one) holds."""
        kernel = V.kernel
        kernel.masks.append(mask)
        try:
            with kernel.swap_buffers(kernel.compute):
                result = body()
        finally:
            kernel.masks.pop()
        dtype = _dtype_of(result) or torch.float32
        t = lane_type(dtype)
        if isinstance(other, (bool, int, float)):
            other = OpenCLOverrides.constant(other, dtype)
        return kernel.cse.generate(kernel.compute, f"FOO_WHERE({t}, {mask}, {result}, {other})", dtype=dtype)

    @staticmethod
    def where(a: CSEVariable, b: CSEVariable, c: CSEVariable) -> str:
        dtype, (b, c) = _common(b, c)
        return f"FOO_WHERE({lane_type(dtype)}, {a}, {b}, {c})"

    @staticmethod
    def floordiv(a: CSEVariable, b: CSEVariable) -> str:
        dtype, (a, b) = _common(a, b)
        if dtype.is_floating_point:
            return _nan_kept(f"({a} / {b})", f"floor({a} / {b})")
        return f"FOO_VFLOORDIV_INT({lane_type(dtype)}, {a}, {b})"

    @staticmethod
    def truncdiv(a: CSEVariable, b: CSEVariable) -> str:
        dtype, (a, b) = _common(a, b)
        return (
            _nan_kept(f"({a} / {b})", f"trunc({a} / {b})")
            if dtype.is_floating_point
            else f"({a} / FOO_DIVISOR({lane_type(dtype)}, {b}))"
        )

    @staticmethod
    def mod(a: CSEVariable, b: CSEVariable) -> str:
        dtype, (a, b) = _common(a, b)
        return (
            f"FOO_NAN_KEPT2(ANY, {a}, {b}, fmod({a}, {b}))"
            if dtype.is_floating_point
            else f"({a} % FOO_DIVISOR({lane_type(dtype)}, {b}))"
        )

    @staticmethod
    def remainder(a: CSEVariable, b: CSEVariable) -> str:
        dtype, (a, b) = _common(a, b)
        kind = "FLOAT" if dtype.is_floating_point else "INT"
        return f"FOO_VMOD_{kind}({lane_type(dtype)}, {a}, {b})"

    @staticmethod
    def pow(a: CSEVariable, b: CSEVariable) -> str:
        dtype, (a, b) = _common(a, b)
        if dtype.is_floating_point:
            return f"FOO_NAN_KEPT2(POW, {a}, {b}, pow({a}, {b}))"
        return _per_lane_of(lambda x, n: f"foo_ipow({x}, {n})", dtype, a, b)

    @staticmethod
    def abs(x: CSEVariable) -> str:
        if _is_floating(x):
            return f"fabs({x})"
        return f"FOO_WHERE({lane_type(_dtype_of(x))}, FOO_BOOL({x} < {_zero(x)}), -{x}, {x})"

    @staticmethod
    def sign(x: CSEVariable) -> str:
        t = lane_type(_dtype_of(x) or torch.float32)
        # (0 < x) - (x < 0), as PyTorch's: 0 for NaN.
        return f"(FOO_CVT({t}, FOO_BOOL({x} > ({t})0)) - FOO_CVT({t}, FOO_BOOL({x} < ({t})0)))"

    @staticmethod
    def signbit(x: CSEVariable) -> str:
        return f"FOO_BOOL(signbit({x}) != 0)" if _is_floating(x) else f"FOO_BOOL({x} < {_zero(x)})"

    @staticmethod
    def isnan(x: CSEVariable) -> str:
        return f"FOO_BOOL(isnan({x}) != 0)" if _is_floating(x) else "FOO_SPLAT(int, 0)"

    @staticmethod
    def isinf(x: CSEVariable) -> str:
        return f"FOO_BOOL(isinf({x}) != 0)" if _is_floating(x) else "FOO_SPLAT(int, 0)"

    @staticmethod
    def logical_and(a: CSEVariable, b: CSEVariable) -> str:
        return f"(FOO_BOOL({a} != {_zero(a)}) & FOO_BOOL({b} != {_zero(b)}))"

    @staticmethod
    def logical_or(a: CSEVariable, b: CSEVariable) -> str:
        return f"(FOO_BOOL({a} != {_zero(a)}) | FOO_BOOL({b} != {_zero(b)}))"

    @staticmethod
    def logical_xor(a: CSEVariable, b: CSEVariable) -> str:
        return f"(FOO_BOOL({a} != {_zero(a)}) ^ FOO_BOOL({b} != {_zero(b)}))"

    @staticmethod
    def logical_not(a: CSEVariable) -> str:
        return f"FOO_BOOL({a} == {_zero(a)})"

    @staticmethod
    def ldexp(x: CSEVariable, n: CSEVariable) -> str:
        return f"ldexp({x}, FOO_CVT(int, {n}))"

    @staticmethod
    def fma(x: CSEVariable, y: CSEVariable, z: CSEVariable) -> str:
        _, (x, y, z) = _common(x, y, z)
        return f"fma({x}, {y}, {z})"

    @staticmethod
    def value_expr(expr: sympy.Expr, dtype: torch.dtype) -> str:
        return ops.index_expr(expr, dtype)

    @staticmethod
    def round(x: CSEVariable) -> str:
        return _nan_kept(x, f"rint({x})")

    @staticmethod
    def ndtr(x: CSEVariable) -> str:
        return (
            f"(0.5f * erfc(-{x} * 0.70710678118654752f))"
            if _dtype_of(x) != torch.float64
            else (f"(0.5 * erfc(-{x} * 0.70710678118654752))")
        )

    @staticmethod
    def frexp(x: CSEVariable) -> tuple[CSEVariable, CSEVariable]:
        """(mantissa, exponent): OpenCL's frexp writes the exponent through a pointer."""
        kernel = V.kernel
        exponent = kernel.cse.newvar(dtype=torch.int32)
        kernel.compute.writeline(f"{kernel.cse.prefix}{exponent};")
        mantissa = kernel.cse.generate(kernel.compute, f"frexp({x}, &{exponent})", dtype=_dtype_of(x))
        return mantissa, exponent

    erf = _vectorised("erf")
    sin = _vectorised("sin")
    cos = _vectorised("cos")
    tan = _vectorised("tan")
    tanh = _vectorised("tanh")
    exp = _builtin("exp")
    exp2 = _builtin("exp2")
    expm1 = _builtin("expm1")
    log = _builtin("log")
    log2 = _builtin("log2")
    log10 = _builtin("log10")
    log1p = _builtin("log1p")
    sqrt = _builtin("sqrt")
    rsqrt = _builtin("rsqrt")
    asin = _builtin("asin")
    acos = _builtin("acos")
    atan = _builtin("atan")
    sinh = _builtin("sinh")
    cosh = _builtin("cosh")
    asinh = _builtin("asinh")
    acosh = _builtin("acosh")
    atanh = _builtin("atanh")

    erfc = _builtin("erfc")
    lgamma = _builtin("lgamma")
    floor = _builtin("floor")
    ceil = _builtin("ceil")
    trunc = _builtin("trunc")


# PyTorch's special functions, from foo's own kernels' headers (kernels_cl/special.clh,
# special_bessel.clh, math.clh), which compute in one floating type `ct` per kernel: op name ->
# function. The polynomials take an integer degree as their second argument.
_SPECIAL = {
    "erfinv": "foo_erfinv",
    "digamma": "foo_digamma",
    "ndtri": "foo_ndtri",
    "log_ndtr": "foo_log_ndtr",
    "i0": "foo_i0",
    "i0e": "foo_i0e",
    "i1": "foo_i1",
    "i1e": "foo_i1e",
    "airy_ai": "foo_airy_ai",
    "bessel_j0": "foo_bessel_j0",
    "bessel_j1": "foo_bessel_j1",
    "bessel_y0": "foo_bessel_y0",
    "bessel_y1": "foo_bessel_y1",
    "modified_bessel_i0": "foo_modified_bessel_i0",
    "modified_bessel_i1": "foo_modified_bessel_i1",
    "modified_bessel_k0": "foo_modified_bessel_k0",
    "modified_bessel_k1": "foo_modified_bessel_k1",
    "scaled_modified_bessel_k0": "foo_scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1": "foo_scaled_modified_bessel_k1",
    "spherical_bessel_j0": "foo_spherical_bessel_j0",
    "zeta": "foo_zeta",
    "igamma": "foo_igamma",
    "igammac": "foo_igammac",
    "gammainc": "foo_igamma",
    "gammaincc": "foo_igammac",
}
_SPECIAL_POLYNOMIALS = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


def _special(x: Any) -> None:
    """Marks the kernel as using foo's special functions in x's floating type."""
    dtype = _dtype_of(x) or torch.float32
    dtype = torch.float64 if dtype == torch.float64 else torch.float32
    kernel = V.kernel
    if kernel.special_dtype not in (None, dtype):
        raise NotImplementedError("foo-cl: a compiled kernel takes special functions in one floating type")
    kernel.special_dtype = dtype


def _special_fn(function: str):
    """A special function of foo's headers, in its first argument's floating type."""

    def fn(*args: CSEVariable) -> str:
        _special(args[0])
        return f"{function}({', '.join(str(a) for a in args)})"

    return fn


def _polygamma(n: CSEVariable, x: CSEVariable) -> str:
    """PyTorch's polygamma: digamma, trigamma, then (-1)^(n+1) n! zeta(n + 1, x)."""
    _special(x)
    return f"({n} == 0 ? foo_digamma({x}) : {n} == 1 ? foo_trigamma({x}) : foo_polygamma({n}, {x}))"


def _special_polynomial(name: str):
    def fn(x: CSEVariable, n: CSEVariable) -> str:
        _special(x)
        return f"foo_{name}({x}, foo_polynomial_degree({n}))"

    return fn


def _zero(x: Any) -> str:
    """0 in x's lane type: OpenCL C compares a char vector with a char, not an int."""
    return f"({lane_type(_dtype_of(x) or torch.float32)})0"


def _common(*values: Any) -> tuple[torch.dtype, list[str]]:
    """The values' common dtype (PyTorch's promotion), and the values converted to it."""
    dtypes = [d for d in map(_dtype_of, values) if d is not None]
    dtype = functools.reduce(torch.promote_types, dtypes) if dtypes else torch.float32
    t = lane_type(dtype)

    def convert(v: Any) -> str:
        if isinstance(v, (bool, int, float)):  # a Python number, from Inductor's own op calls
            return f"(({t}){_literal(v, dtype)})"
        return f"FOO_CVT({t}, {v})" if _dtype_of(v) is not None and lane_type(_dtype_of(v)) != t else str(v)

    return dtype, [convert(v) for v in values]


def _lanes_binary(template: str, result: str | None = None):
    """An op of two values in their common type: template formats {a}, {b} and {t} (the type of a lane);
    result is "bool" for comparisons (FOO_BOOL of the template)."""

    def fn(a: CSEVariable, b: CSEVariable) -> str | CSEVariable:
        uniform = _scalar_float_op(a, b) if template in _SCALAR_ARITHMETIC else None
        if uniform is not None:
            return _uniform_value(uniform, f"({template.format(a=_scalar(a, uniform), b=_scalar(b, uniform))})")
        dtype, (a, b) = _common(a, b)
        text = template.format(a=a, b=b, t=lane_type(dtype))
        return f"FOO_BOOL({text})" if result == "bool" else f"({text})"

    return staticmethod(fn)


# The templates an op of uniform floating values computes once for the lanes (_uniform_value).
_SCALAR_ARITHMETIC = ("{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}")
for _name, _template in {
    "add": "{a} + {b}",
    "sub": "{a} - {b}",
    "mul": "{a} * {b}",
    "truediv": "{a} / {b}",
    "and_": "{a} & {b}",
    "or_": "{a} | {b}",
    "xor": "{a} ^ {b}",
    "bitwise_and": "{a} & {b}",
    "bitwise_or": "{a} | {b}",
    "bitwise_xor": "{a} ^ {b}",
    "lshift": "FOO_LSHIFT({t}, {a}, {b})",
    "rshift": "FOO_RSHIFT({t}, {a}, {b})",
    "bitwise_left_shift": "FOO_LSHIFT({t}, {a}, {b})",
    "bitwise_right_shift": "FOO_RSHIFT({t}, {a}, {b})",
    "maximum": "FOO_MAX({a}, {b})",
    "minimum": "FOO_MIN({a}, {b})",
    "fmod": "FOO_NAN_KEPT2(ANY, {a}, {b}, fmod({a}, {b}))",
    "atan2": "FOO_NAN_KEPT2(ANY, {a}, {b}, atan2({a}, {b}))",
    "hypot": "FOO_NAN_KEPT2(HYPOT, {a}, {b}, hypot({a}, {b}))",
    "copysign": "copysign({a}, {b})",
    "nextafter": "FOO_NAN_KEPT2(ANY, {a}, {b}, nextafter({a}, {b}))",
}.items():
    setattr(OpenCLOverrides, _name, _lanes_binary(_template))
for _name, _operator in {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}.items():
    setattr(OpenCLOverrides, _name, _lanes_binary(f"{{a}} {_operator} {{b}}", result="bool"))


class _Lane:
    """Lane k of a value variable, standing for the variable in an op's scalar code."""

    def __init__(self, var: CSEVariable, lane: int) -> None:
        self.var, self.dtype, self.lane = var, var.dtype, lane

    def __str__(self) -> str:
        return _lane(self.var, self.lane)


def _per_lane_of(scalar: Any, dtype: torch.dtype, *args: Any) -> str:
    """scalar (an op of OpenCLOverrides) applied lane by lane: a value of `dtype`."""
    lanes = [
        str(scalar(*(_Lane(a, lane) if isinstance(a, CSEVariable) else a for a in args)))
        for lane in range(V.kernel.lanes)
    ]
    return f"FOO_PER_LANE({lane_type(dtype)}, {', '.join(lanes)})"


def _per_lane(name: str, scalar: Any):
    """Op `name` of no vector form, from `scalar`, its expression on one lane's values."""

    def fn(*args: Any) -> str:
        dtype = getattr(DtypePropagationOpsHandler(), name)(*args)
        return _per_lane_of(scalar, dtype, *args)

    return staticmethod(fn)


def _lanes_random(function: str):
    """A random op of kernels_cl/inductor.clh, on long lanes (seed, offset[, low, high]), with a
    foo_random_tile of its own (the kernel declares it before its loops). Where every lane has one
    seed and the lanes' offsets are consecutive (Inductor's seed load and index), its _RUN form
    takes lane 0's, and does not check that at every block."""

    def fn(seed: CSEVariable, offset: CSEVariable, *bounds: CSEVariable) -> str:
        tile = V.kernel.random_tile()
        if getattr(seed, "step", None) == 0 and getattr(offset, "step", None) == 1:
            args = [f"(long)({seed.first})", f"(long)({offset.first})", *map(_longs, bounds), tile]
            return f"{function}_RUN({', '.join(args)})"
        return f"{function}({', '.join([*map(_longs, (seed, offset, *bounds)), tile])})"

    return staticmethod(fn)


OpenCLOverrides.rand = _lanes_random("FOO_RAND")
OpenCLOverrides.randn = _lanes_random("FOO_RANDN")
OpenCLOverrides.randint64 = _lanes_random("FOO_RANDINT64")
for _name, _function in _SPECIAL.items():
    setattr(OpenCLOverrides, _name, _per_lane(_name, _special_fn(_function)))
for _name in _SPECIAL_POLYNOMIALS:
    setattr(OpenCLOverrides, _name, _per_lane(_name, _special_polynomial(_name)))
OpenCLOverrides.polygamma = _per_lane("polygamma", _polygamma)


def _dtype_of(x: Any) -> torch.dtype | None:
    return getattr(x, "dtype", None)


def _longs(x: CSEVariable) -> str:
    """An integer value as a value of longs."""
    return str(x) if _dtype_of(x) == torch.int64 else f"FOO_CVT(long, {x})"


def _is_floating(*values: Any) -> bool:
    dtypes = [_dtype_of(v) for v in values]
    known = [d for d in dtypes if d is not None]
    return any(d.is_floating_point for d in known) if known else True


class _Lanes(NamedTuple):
    """A value's C expression, and where it is known, lane 0's value as a scalar C expression
    (`first`) and how much each lane's exceeds the previous one's (`step`: 0 for one value)."""

    code: str
    first: str | None = None
    step: int | None = None


class LaneVariable(CSEVariable):
    """A value variable, with what is known of its lanes (as _Lanes's first and step)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.first: str | None = None
        self.step: int | None = None
        # A value rounded to float16 or bfloat16 (to_dtype): that dtype and the value unrounded.
        self.rounded_from: tuple[torch.dtype, str] | None = None

    def known_lanes(self, first: str, step: int) -> None:
        self.first, self.step = first, step


class LaneCSE(CSE):
    """CSE whose assignments declare their variable with its type (OpenCL C has no ``auto``): a
    value of FOO_W lanes of the variable's dtype."""

    _latest: CSEVariable | None = None

    def newvar(self, *args: Any, **kwargs: Any) -> CSEVariable:
        var = super().newvar(*args, **kwargs)
        self._latest = var
        return var

    @property  # type: ignore[override]
    def prefix(self) -> str:
        var = self._latest
        dtype = var.dtype if var is not None and var.dtype is not None else torch.float32
        return f"FOO_V({lane_type(dtype)}) "

    @prefix.setter
    def prefix(self, value: str) -> None:
        """NOTE: CSE's constructor (and clone) set a fixed prefix; the type comes from the variable."""


class OpenCLKernel(SIMDKernel):
    """One generated OpenCL C kernel (see the module's docstring for its shape)."""

    overrides = OpenCLOverrides  # type: ignore[assignment]
    suffix = ";"
    sexpr = _printer.doprint
    kexpr = _printer.doprint

    def __init__(self, tiling: dict[str, sympy.Expr], **kwargs: Any) -> None:
        super().__init__(tiling, **kwargs)
        self.cse = LaneCSE(self.newvar_prefix, self.suffix)
        # How the grid loop goes (foo_cl.inductor.runtime).
        self.loop = ELEMENTS
        if self.inside_reduction:
            self.loop = COLUMNS if _reads_along_outputs(self.features.reduction_nodes()) else ROWS
        # The range whose consecutive iterations a value's lanes hold (see _lane_position).
        self._lanes_tree = self.range_trees[-1] if self.loop == ROWS else self.range_trees[0]
        self.lanes = LANES[self.loop]  # FOO_W on CPU devices (in row loops, on every device)
        self.masks: list[CSEVariable] = []  # the masks of the masked bodies being generated
        self.x_indexing = IndentedBuffer()  # the pointwise range's index variables, once per output
        self.post_loop_combine = IndentedBuffer()  # reductions' lanes combined, after their loop
        self.post_loop_store = IndentedBuffer()  # stores of reduction results, after their loop
        self.outside_loop_vars: OrderedSet[CSEVariable] = OrderedSet()
        self.accumulators = itertools.count()
        self.special_dtype: torch.dtype | None = None  # the `ct` of foo's special-function headers
        self.random_tiles: list[str] = []  # foo_random_tile variables of the kernel's random ops
        self.reports_errors = False  # whether the kernel takes its device's error word (check_bounds)
        # Over columns (_column_loop): whether the first loop's turns take COLUMN_GROUP blocks of
        # columns together (not where code runs before that loop), and whether that loop is done
        # (the code after it runs once per block, in a loop over the blocks closed at the kernel's end).
        self.column_groups = True
        self.after_column_loop = False

    def create_cse_var(self, *args: Any, **kwargs: Any) -> LaneVariable:
        return LaneVariable(*args, **kwargs)

    def generate_lanes(self, buffer: IndentedBuffer, lanes: _Lanes, dtype: torch.dtype, **kwargs: Any) -> CSEVariable:
        """A variable holding `lanes`'s value, of dtype, knowing what lanes knows."""
        var = self.cse.generate(buffer, lanes.code, dtype=dtype, **kwargs)
        if lanes.first is not None and lanes.step is not None:
            var.known_lanes(lanes.first, lanes.step)
        return var

    def random_tile(self) -> str:
        """A new random op's foo_random_tile variable."""
        self.random_tiles.append(f"foo_tile{len(self.random_tiles)}")
        return self.random_tiles[-1]

    def dtype_to_str(self, dtype: torch.dtype) -> str:
        return value_type(dtype)

    @property
    def narrow_indices(self) -> bool:
        """Whether every index of the kernel fits in 31 bits (the printer's unsigned 32-bit math)."""
        return self._index_dtype == torch.int32

    def get_index_dtype_as_torch_dtype(self) -> torch.dtype:
        # NOTE: indices are always 64-bit: Mesa 22's llvmpipe zero-extends some int values converted
        # to long (a padded index of -1 compared as 4294967295), and CPUs pay nothing for long.
        return torch.int64

    def should_use_persistent_reduction(self) -> bool:
        return False  # a reduction's row or column is a loop

    def _loads_outside_loop(self, index: sympy.Expr) -> bool:
        """Whether a load in a reduction's loop reads the same element in every turn: not under a
        mask, not at an indirect index (whose bounds are checked in the loop), not along the row."""
        return (
            self.inside_reduction
            and self.loop != COLUMNS  # (its turns may take several blocks: _column_loop)
            and not self.masks
            and not any(symbol_is_reduction(s) or symbol_is_type(s, SymT.TMP) for s in index.free_symbols)
        )

    def load(self, name: str, index: sympy.Expr) -> CSEVariable:
        var = self.args.input(name)
        dtype = V.graph.get_dtype(name)
        if _cpu_scalar(name):  # a value parameter (_parameters), the same in every turn of every loop
            value = lane_type(dtype) if dtype == torch.bool else value_type(dtype)
            result = self.generate_lanes(self.body, _Lanes(f"FOO_SPLAT({value}, {var})", var, 0), compute_dtype(dtype))
            self.outside_loop_vars.add(result)
            return result
        index = self.prepare_indexing(index)
        if self._loads_outside_loop(index):
            # Values a reduction's row does not change are read once, before its loop.
            lanes = self._lanes_load(var, dtype, index, in_loop=False)
            result = self.generate_lanes(self.body, lanes, compute_dtype(dtype))
            self.outside_loop_vars.add(result)
            return result
        return self.generate_lanes(self.loads, self._lanes_load(var, dtype, index), compute_dtype(dtype))

    def store(self, name: str, index: sympy.Expr, value: CSEVariable, mode: Any = None) -> None:
        var = self.args.output(name)
        dtype = V.graph.get_dtype(name)
        index = self.prepare_indexing(index)
        if mode == "atomic_add":
            # kernels_cl/atomics.clh: compare-and-swap loops where OpenCL has no atomic add.
            lane = 0 if self._uniform(self._in_loop()) else _LANE
            add = f"ATOMIC_ADD_{_atomic_name(dtype)}(&{var}[{self._lane_position(index, lane)}], {_lane(value, lane)});"
            add = self._guarded_statement(add, lane, self._in_loop())
            line = add if lane == 0 else self._each_lane(add)
        elif mode is None:
            line = self._lanes_store(var, dtype, index, value)
        else:
            raise NotImplementedError(f"foo-cl: compiled kernels do not support store mode {mode}")
        self.stores.writeline(DeferredLine(name, line))

    def store_reduction(self, name: str, index: sympy.Expr, value: CSEVariable) -> None:
        var, dtype, index = self.args.output(name), V.graph.get_dtype(name), self.prepare_indexing(index)
        if self.loop == COLUMNS:  # a lane per output
            line = self._lanes_store(var, dtype, index, value)
        else:  # a row's result, in every lane
            line = _element_store(var, dtype, self.index_to_str(index), _lane(value, 0))
        self.post_loop_store.writeline(DeferredLine(name, line))

    # Lanes: a value holds FOO_W lanes, consecutive iterations of one range (the reduction range in
    # reductions over rows, the pointwise range elsewhere). A position along it is written from the
    # range's root variable, which is _lane_base() in a block's lane 0; in reductions over columns,
    # the reduction range's root variable is foo_r, its loop's element.

    def _lane_base(self) -> sympy.Symbol:
        return _FOO_R if self._lanes_tree.is_reduction else _FOO_X

    def _in_loop(self) -> bool:
        """Whether code goes into a reduction's loop over a row in blocks, whose last block's lanes
        past the row's end (foo_valid) must not be read or written (a column's loop has none)."""
        return self.inside_reduction and self._lanes_tree.is_reduction

    def _written_at_use(self, tree: Any) -> bool:
        """Whether a range tree's entries are written in their root variable where they are used
        (the lanes' range; in columns, the reduction range too), rather than declared per output."""
        return tree is self._lanes_tree or (self.loop == COLUMNS and tree.is_reduction)

    def _in_range_variable(self, index: sympy.Expr) -> sympy.Expr:
        """index with the entries of ranges written at their use in their root variables."""
        entries = {
            s: self.range_tree_nodes[s].expr
            for s in index.free_symbols
            if s in self.range_tree_nodes and self._written_at_use(self.range_tree_nodes[s].root)
        }
        return sympy_subs(index, entries) if entries else index

    def _lane_position(self, index: sympy.Expr, lane: sympy.Expr | int) -> str:
        """index at lane `lane` of the current block, as C; indirect indices take that lane of their
        variable."""
        expr = self._in_range_variable(index)
        replacements: dict[sympy.Symbol, sympy.Expr] = {self._lanes_tree.symbol(): self._lane_base() + lane}
        if self.loop == COLUMNS:
            replacements[self.range_trees[-1].symbol()] = _FOO_R
        for symbol in expr.free_symbols:
            if symbol_is_type(symbol, SymT.TMP):
                var = self.cse.varname_map[str(symbol)]
                replacements[symbol] = sympy.Symbol(_lane(var, lane), integer=True)
        return self.index_to_str(sympy_subs(expr, replacements))

    def _offsets_from_lane_0(self, index: sympy.Expr) -> tuple[list[sympy.Expr] | None, int | sympy.Expr]:
        """How far index at each lane of the current block lies from lane 0's, where those are
        constants (_lane_offsets), else None (indirect indices vary by lane); and the row length
        (0: none) of the blocks they hold for. In pointwise kernels, where they are not constants
        in every block (rows of other lengths than multiples of FOO_W: padding's, 14x14 images'),
        they may be in the blocks within a row (FOO_IN_ROW)."""
        if any(symbol_is_type(s, SymT.TMP) for s in index.free_symbols):
            return None, 0
        expr, root = self._in_range_variable(index), self._lanes_tree.symbol()
        offsets = _lane_offsets(expr, root, self.lanes)
        if offsets is not None or self.loop != ELEMENTS:
            return offsets, 0
        for row in _row_lengths(expr, self.lanes):
            offsets = _lane_offsets(expr, root, self.lanes, row)
            if offsets is not None:
                return offsets, row
        return None, 0

    def _lane_stride(self, index: sympy.Expr) -> tuple[sympy.Expr | None, int | sympy.Expr]:
        """How far index moves from lane to lane within a block (0: every lane the same element, 1:
        consecutive elements), or None where that is not one constant; and in blocks of what row
        length (_offsets_from_lane_0)."""
        offsets, row = self._offsets_from_lane_0(index)
        if offsets is None:
            return None, 0
        stride = offsets[1]
        constant = all(sympy.expand(offset - lane * stride) == 0 for lane, offset in enumerate(offsets))
        return (stride, row) if constant else (None, 0)

    def _in_row(self, row: int | sympy.Expr) -> str:
        """Whether the current block lies within a row of length `row`, as C."""
        return f"FOO_IN_ROW({self._lane_base()}, {self.index_to_str(sympy.sympify(row))})"

    def _lane_positions(self, index: sympy.Expr) -> list[str]:
        """index at each lane of the current block, as C: lane 0's position plus a constant where
        there are such constants in every block (one index computation, not FOO_W), else each lane's own."""
        offsets, row = self._offsets_from_lane_0(index)
        if offsets is None or row:
            return [self._lane_position(index, lane) for lane in range(self.lanes)]
        base = self._lane_position(index, 0)
        return [base if offset == 0 else f"{base} + {self.index_to_str(offset)}" for offset in offsets]

    def _uniform(self, in_loop: bool) -> bool:
        """Whether values are the same in every lane: in a reduction over rows, outside its loop (a
        row's values); a read or write there takes lane 0's element once."""
        return self._lanes_tree.is_reduction and not in_loop

    def _lane_guard(self, lane: sympy.Expr | int, in_loop: bool) -> str:
        """What must hold for lane `lane` to touch memory, as C ('' when nothing): the masks of
        masked bodies, and in a reduction's loop that the lane is in the row."""
        guards = [_lane(mask, lane) for mask in self.masks]
        return " & ".join([*guards, _lane_of("int", "foo_valid", lane)] if in_loop else guards)

    def _guarded_statement(self, statement: str, lane: sympy.Expr | int, in_loop: bool) -> str:
        guard = self._lane_guard(lane, in_loop)
        return f"if ({guard}) {statement}" if guard else statement

    def _guarded_element(self, element: str, lane: sympy.Expr | int, in_loop: bool) -> str:
        """element where lane `lane` may read it, else 0."""
        guard = self._lane_guard(lane, in_loop)
        return f"({guard} ? {element} : 0)" if guard else element

    def _lanes_load(self, var: str, dtype: torch.dtype, index: sympy.Expr, in_loop: bool | None = None) -> _Lanes:
        """A value of FOO_W lanes read from buffer var at index: consecutive elements in one vector
        load, one element broadcast, otherwise lane by lane; under masks and in a reduction's last
        block, only the lanes that may read do."""
        in_loop = self._in_loop() if in_loop is None else in_loop
        stride, row = self._lane_stride(index)
        if (stride == 0 and not self.masks and not row) or self._uniform(in_loop):
            element = self._guarded_element(_element(var, dtype, self._lane_position(index, 0)), 0, in_loop)
            return _Lanes(f"FOO_SPLAT({lane_type(dtype)}, {element})", element, 0)
        lanes = [
            self._guarded_element(_element(var, dtype, position), lane, in_loop)
            for lane, position in enumerate(self._lane_positions(index))
        ]
        by_lane = f"FOO_PER_LANE({lane_type(dtype)}, {', '.join(lanes)})"
        if stride == 0 and not self.masks:  # one element, in the blocks within a row
            whole = f"FOO_SPLAT({lane_type(dtype)}, {_element(var, dtype, self._lane_position(index, 0))})"
        elif stride in (1, 2):
            whole = _vector_load(var, dtype, self._lane_position(index, 0), every_other=stride == 2)
        else:
            return _Lanes(by_lane)
        if row:
            whole = f"({self._in_row(row)} ? {whole} : {by_lane})"
        if in_loop:  # a row's last block reads lane by lane
            whole = f"(foo_tail ? {by_lane} : {whole})"
        if self.masks:
            # A block whose lanes all may read takes the vector load, one whose lanes none may
            # read reads nothing (cat's inputs, padding's inner blocks).
            mask = f"(({' & '.join(map(str, self.masks))}) != 0)"
            none = f"FOO_SPLAT({lane_type(dtype)}, 0)"
            return _Lanes(f"(FOO_ALL({mask}) ? {whole} : FOO_ANY({mask}) ? {by_lane} : {none})")
        return _Lanes(whole)

    def _lanes_store(self, var: str, dtype: torch.dtype, index: sympy.Expr, value: CSEVariable) -> str:
        """A statement writing the lanes of value to buffer var at index (one element: lane 0's)."""
        stride, row = self._lane_stride(index)
        if (stride == 0 and not row) or self._uniform(self._in_loop()):
            return _element_store(var, dtype, self._lane_position(index, 0), _lane(value, 0))
        by_lane = _element_store(var, dtype, self._lane_position(index, _LANE), _lane(value, _LANE))
        by_lane = self._each_lane(self._guarded_statement(by_lane, _LANE, self._in_loop()))
        if stride != 1:
            return by_lane
        base = self._lane_position(index, 0)
        rounded_from = getattr(value, "rounded_from", None)
        if rounded_from is not None and rounded_from[0] == dtype:
            value = rounded_from[1]  # rounded once, by the store
        storage = _types(dtype)[1]
        if dtype == torch.float16:
            whole = f"FOO_LANES_STORE_HALF({var}, {base}, FOO_CVT(float, {value}));"
        else:
            bf16 = dtype == torch.bfloat16
            bits = f"FOO_FLOAT_TO_BF16(FOO_CVT(float, {value}))" if bf16 else f"FOO_CVT({storage}, {value})"
            store = f"FOO_LANES_STORE_NARROW({storage}, " if dtype.itemsize <= 2 else "FOO_LANES_STORE("
            whole = f"{store}{var}, {base}, {bits});"
        if row:
            return f"if ({self._in_row(row)}) {{ {whole} }} else {{ {by_lane} }}"
        return f"if (foo_tail) {{ {by_lane} }} else {{ {whole} }}" if self._in_loop() else whole

    @staticmethod
    def _each_lane(statement: str) -> str:
        return f"for (int foo_l = 0; foo_l < FOO_W; ++foo_l) {statement}"

    def lanes_index(self, expr: sympy.Expr) -> _Lanes:
        """The lanes of an index expression as a value of longs."""
        index = self.prepare_indexing(expr)
        stride, row = self._lane_stride(index)
        by_lane = f"FOO_PER_LANE(long, {', '.join(f'(long)({p})' for p in self._lane_positions(index))})"
        if stride is None:
            return _Lanes(by_lane)
        first = self._lane_position(index, 0)
        base = f"FOO_SPLAT(long, {first})"
        code = base if stride == 0 else f"({base} + FOO_IOTA * ({self.index_to_str(stride)}))"
        if row:
            return _Lanes(f"({self._in_row(row)} ? {code} : {by_lane})")
        return _Lanes(code, first, int(stride)) if isinstance(stride, sympy.Integer) else _Lanes(code)

    def device_assert_async(self, cond: CSEVariable, msg: str) -> None:
        """torch._assert_async (one_hot's class check): a lane where cond is false and that may touch memory sets
        FOO_ERROR_COMPILED_ASSERT in the device's error word, which the next synchronisation raises."""
        guards = [f"FOO_BOOL({cond} == 0)", *map(str, self.masks), *(["foo_valid"] if self._in_loop() else [])]
        self.compute.writeline(f"if (FOO_ANY(({' & '.join(guards)}) != 0)) FOO_REPORT(FOO_ERROR_COMPILED_ASSERT);")
        self.reports_errors = True

    def check_bounds(self, expr: sympy.Expr, size: sympy.Expr, lower: bool, upper: bool) -> None:
        """An indirect index outside [0, size) in a lane that may touch memory (under its masks, in the
        row) is reported in the device's error word, which the next synchronisation raises (as CUDA's
        device-side asserts); every lane's is clamped into it: a kernel never reads or writes outside
        its buffers."""
        if not (lower or upper) or not isinstance(expr, sympy.Symbol) or str(expr) not in self.cse.varname_map:
            return
        t = value_type(self.cse.varname_map[str(expr)].dtype or torch.int64)
        high = f"({t})({self.index_to_str(size)} - 1)"
        outside = " | ".join(([f"({expr} < ({t})0)"] if lower else []) + ([f"({expr} > {high})"] if upper else []))
        guards = [f"FOO_BOOL({outside})", *map(str, self.masks), *(["foo_valid"] if self._in_loop() else [])]
        self.compute.writeline(f"if (FOO_ANY(({' & '.join(guards)}) != 0)) FOO_REPORT(FOO_ERROR_COMPILED_INDEX);")
        self.reports_errors = True
        bounded = (
            f"clamp({expr}, ({t})0, {high})"
            if lower and upper
            else f"max({expr}, ({t})0)"
            if lower
            else f"min({expr}, {high})"
        )
        self.compute.writeline(f"{expr} = {bounded};")

    def _accumulator(self, dtype: torch.dtype, init: str) -> str:
        """A reduction's accumulator of FOO_W lanes, set before its loop: lane k takes the row's
        elements k, k + FOO_W, ... (in columns: the whole column of lane k's output)."""
        name, t = f"acc{next(self.accumulators)}", lane_type(dtype)
        if self.loop == COLUMNS:  # one per block of a turn (_column_loop)
            self.body.writeline(f"FOO_V({t}) {name}[FOO_G];")
            self.body.writeline(f"for (int foo_g = 0; foo_g < FOO_G; ++foo_g) {name}[foo_g] = FOO_SPLAT({t}, {init});")
            return f"{name}[foo_g]"
        self.body.writeline(f"FOO_V({t}) {name} = FOO_SPLAT({t}, {init});")
        return name

    def _result(self, accumulator: str, dtype: torch.dtype) -> str:
        """What an accumulator's lanes give after the loop: over rows, the scalar they combine into
        (declared, lane 0's value; _combine_lanes folds in the rest); over columns, the lanes."""
        if self.loop == COLUMNS:
            return accumulator
        t = lane_type(dtype)
        self.post_loop_combine.writeline(f"{t} {accumulator}_all = {_lane_of(t, accumulator, 0)};")
        return f"{accumulator}_all"

    def _combine_lanes(self, statement: str) -> None:
        """Over rows, runs statement for lanes foo_l = 1 .. FOO_W - 1 after the loop, folding each
        into the results; over columns each lane is an output of its own."""
        if self.loop == ROWS:
            self.post_loop_combine.writeline(f"for (int foo_l = 1; foo_l < FOO_W; ++foo_l) {statement}")

    def _value(self, result: str, dtype: torch.dtype) -> CSEVariable:
        """A reduction's result (from _result) as a value of FOO_W lanes: equal ones over rows."""
        var, t = self.cse.newvar(dtype=dtype), lane_type(dtype)
        lanes = result if self.loop == COLUMNS else f"FOO_SPLAT({t}, {result})"
        self.post_loop_combine.writeline(f"FOO_V({t}) {var} = {lanes};")
        self.outside_loop_vars.add(var)
        return var

    def _update(self, accumulator: str, dtype: torch.dtype, value: str) -> None:
        """accumulator = value in the lanes that hold elements of the row (all but a last block's
        lanes past its end)."""
        self.compute.writeline(f"{accumulator} = FOO_WHERE({lane_type(dtype)}, foo_valid, {value}, {accumulator});")

    def reduction(self, dtype: torch.dtype, src_dtype: torch.dtype, reduction_type: str, value: Any) -> Any:
        assert self.inside_reduction
        cache_key = (src_dtype, reduction_type, value)
        if cache_key in self.cse.reduction_cache:
            return self.cse.reduction_cache[cache_key]
        result = self._reduction(dtype, src_dtype, reduction_type, value)
        self.cse.reduction_cache[cache_key] = result
        return result

    def _reduction(self, dtype: torch.dtype, src_dtype: torch.dtype, reduction_type: str, value: Any) -> Any:
        """Each lane accumulates its own elements of the row (vector operations on CPU devices);
        the lanes combine after the loop. Over columns, each lane accumulates its output's column."""
        acc_dtype = compute_dtype(src_dtype)
        if reduction_type in _FOLDS:
            combine, init = _FOLDS[reduction_type]
            acc_dtype = torch.bool if reduction_type == "any" else acc_dtype
            if reduction_type in ("sum", "prod", "xor_sum"):
                acc_dtype = compute_dtype(dtype)
            if init is None:  # max, min: the lowest (highest) value of the dtype
                init = _extreme(acc_dtype, highest=reduction_type == "min")
            t = lane_type(acc_dtype)
            if reduction_type == "any":
                value = f"FOO_BOOL({value} != {_zero(value)})"
            elif lane_type(_dtype_of(value) or acc_dtype) != t:
                value = f"FOO_CVT({t}, {value})"
            acc = self._accumulator(acc_dtype, init)
            self._update(acc, acc_dtype, combine.format(acc=acc, value=value))
            result = self._result(acc, acc_dtype)
            self._combine_lanes(f"{result} = {combine.format(acc=result, value=_lane_of(t, acc, 'foo_l'))};")
            return self._value(result, acc_dtype)
        if reduction_type in ("argmax", "argmin"):
            return self._arg_reduction(acc_dtype, ">" if reduction_type == "argmax" else "<", value)
        if reduction_type in ("welford_reduce", "welford_combine"):
            return self._welford(acc_dtype, reduction_type, value)
        raise NotImplementedError(f"foo-cl: compiled kernels do not support reduction {reduction_type}")

    def _arg_reduction(self, acc_dtype: torch.dtype, better: str, value: CSEVariable) -> CSEVariable:
        """The first index of the largest (smallest) value; NaN counts as beyond every number."""
        t = lane_type(acc_dtype)
        best, index = self._accumulator(acc_dtype, "0"), self._accumulator(torch.int64, "-1")
        # In a lane indices only grow: ties keep the earlier one.
        take = self.cse.newvar(dtype=torch.bool)
        self.compute.writeline(
            f"const FOO_V(int) {take} = foo_valid & (FOO_BOOL({index} < 0L) | (FOO_BOOL({best} == {best}) & "
            f"(FOO_BOOL({value} {better} {best}) | FOO_BOOL({value} != {value}))));"
        )
        self.compute.writeline(f"{best} = FOO_WHERE({t}, {take}, {value}, {best});")
        position = "FOO_SPLAT(long, foo_r)" + (" + FOO_IOTA" if self.loop == ROWS else "")
        self.compute.writeline(f"{index} = FOO_WHERE(long, {take}, {position}, {index});")
        best_all, index_all = self._result(best, acc_dtype), self._result(index, torch.int64)
        v, j = _lane_of(t, best, "foo_l"), _lane_of("long", index, "foo_l")
        take_lane = (
            f"{j} >= 0 && ({index_all} < 0 || ({best_all} != {best_all} ? ({v} != {v} && {j} < {index_all}) : "
            f"({v} != {v} || {v} {better} {best_all} || ({v} == {best_all} && {j} < {index_all}))))"
        )
        self._combine_lanes(f"if ({take_lane}) {{ {best_all} = {v}; {index_all} = {j}; }}")
        return self._value(index_all, torch.int64)

    def _welford(self, acc_dtype: torch.dtype, reduction_type: str, value: Any) -> tuple[CSEVariable, ...]:
        """Mean, sum of squared deviations and count (Welford's updates per lane, Chan's combination
        of lanes). An update multiplies by the reciprocal of the count, which does not wait for the
        mean: a division there made each turn wait for the last (15% of a layer_norm's time)."""
        dtype = torch.float64 if acc_dtype == torch.float64 else torch.float32
        t = value_type(dtype)
        mean, m2, weight = (self._accumulator(dtype, "0") for _ in range(3))
        if reduction_type == "welford_reduce":
            x = value if lane_type(_dtype_of(value) or dtype) == t else f"FOO_CVT({t}, {value})"
            self.compute.splice(
                f"""
                {{
                    const FOO_V({t}) weight = {weight} + ({t})1, delta = {x} - {mean};
                    const FOO_V({t}) mean = {mean} + delta * (({t})1 / weight);
                    {m2} = FOO_WHERE({t}, foo_valid, {m2} + delta * ({x} - mean), {m2});
                    {mean} = FOO_WHERE({t}, foo_valid, mean, {mean});
                    {weight} = FOO_WHERE({t}, foo_valid, weight, {weight});
                }}
                """
            )
        else:
            self.compute.writeline(
                f"FOO_VWELFORD_COMBINE({t}, foo_valid, {mean}, {m2}, {weight}, {value[0]}, {value[1]}, {value[2]});"
            )
        results = [self._result(x, dtype) for x in (mean, m2, weight)]
        lanes = ", ".join(_lane_of(t, x, "foo_l") for x in (mean, m2, weight))
        self._combine_lanes(f"FOO_WELFORD_COMBINE({t}, {', '.join(results)}, {lanes});")
        return tuple(self._value(x, dtype) for x in results)

    def codegen_iteration_ranges_entry(self, entry: IterationRangesEntry) -> None:
        # Positions along ranges written at their use are written from their root variables
        # (_lane_position); the others' entries are declared once per output.
        if not self._written_at_use(entry.root):
            self.x_indexing.writeline(f"const long {entry.name} = {self.sexpr(self.rename_indexing(entry.expr))};")

    def codegen_body(self) -> None:
        """Moves the pending loads, compute and stores into the body: inside a loop over the
        reduction range when they belong to a reduction (over rows: whole blocks of FOO_W elements,
        then the last block with its lanes past the row's end left out; over columns: an element a
        turn), straight otherwise."""
        if not (self.loads or self.compute or self.stores or self.post_loop_store):
            return
        tree = self.range_trees[-1]
        if self.inside_reduction and tree.is_reduction:
            body = IndentedBuffer()
            for buffer in (self.loads, self.compute, self.stores):
                body.splice(buffer)
            numel = f"{tree.prefix}numel"
            self.body.writeline("{")
            with self.body.indent():
                if self.loop == COLUMNS:
                    self._column_loop(body, numel)
                else:
                    self.body.writeline("long foo_r = 0;")
                    self.body.writeline(f"const long foo_r_blocks = {numel} / FOO_W * FOO_W;  // see FOO_BLOCK_RANGE")
                    self.body.writeline("for (; foo_r < foo_r_blocks; foo_r += FOO_W) {")
                    self._loop_turn(body, valid="FOO_SPLAT(int, 1)", tail="false")
                    self.body.writeline(f"if (foo_r < {numel}) {{")
                    self._loop_turn(body, valid=f"FOO_BOOL(FOO_SPLAT(long, foo_r) + FOO_IOTA < {numel})", tail="true")
            self.body.writeline("}")
            # Variables declared in the loop are out of scope after it.
            self.cse.invalidate(self.outside_loop_vars)
            tree.cache_clear()
        else:
            if self.loop == COLUMNS and not self.after_column_loop:
                self.column_groups = False  # this code takes the turn's first block alone
            self.body.splice(self.loads)
            self.body.splice(self.compute)
            self.body.splice(self.stores)
        if self.loop == COLUMNS and not self.after_column_loop:
            self.body.writeline("FOO_EACH_COLUMN_BLOCK {")
            self.body.do_indent()
            self.body.writeline("const INDEX_T foo_x = foo_x0 + foo_g * FOO_W;")
            self.after_column_loop = True
        self.body.splice(self.post_loop_combine)
        self.body.splice(self.post_loop_store)
        for buffer in (self.loads, self.compute, self.stores, self.post_loop_combine, self.post_loop_store):
            buffer.clear()

    def _column_loop(self, body: IndentedBuffer, numel: str) -> None:
        """A reduction's loop over columns: each turn takes a row's element of each column. The
        kernel's first such loop takes the FOO_G blocks of FOO_W columns of a turn in each row
        (kernels_cl/inductor.clh: FOO_EACH_COLUMN_BLOCK), with an accumulator per block; the
        code after it, later loops included, runs once per block."""
        self.body.writeline(f"for (long foo_r = 0; foo_r < {numel}; ++foo_r) {{")
        if self.after_column_loop:
            self._loop_turn(body, valid="FOO_SPLAT(int, 1)")
            return
        with self.body.indent():
            self.body.writeline("FOO_EACH_COLUMN_BLOCK {")
            with self.body.indent():
                self.body.writeline("const INDEX_T foo_x = foo_x0 + foo_g * FOO_W;")
            self._loop_turn(body, valid="FOO_SPLAT(int, 1)")
        self.body.writeline("}")

    def _loop_turn(self, body: IndentedBuffer, valid: str, tail: str | None = None) -> None:
        """A reduction loop's turn, after its opening line: body, with foo_valid (the lanes that
        hold elements: all of them in a column's turn) and over rows foo_tail (whether the turn is
        the row's last, partial block) defined."""
        with self.body.indent():
            if tail is not None:
                self.body.writeline(f"const bool foo_tail = {tail};")
            self.body.writeline(f"const FOO_V(int) foo_valid = {valid};")
            self.body.splice(body)
        self.body.writeline("}")

    def _arguments(self) -> list[tuple[str, str, Any, str]]:
        """The kernel's arguments as (name in the kernel, name in the wrapper, dtype or size type, kind),
        in foo's kernel ABI's order of kinds: "tensor", then "scalar" (a CPU scalar, _cpu_scalar), then
        "size"."""
        arg_defs, call_args, _, arg_types = self.args.python_argdefs()
        kinds = ("tensor", "scalar", "size")
        arguments = []
        for arg, outer, arg_type in zip(arg_defs, call_args, arg_types):
            kind = "size" if not isinstance(arg_type, torch.dtype) else "scalar" if _cpu_scalar(outer) else "tensor"
            arguments.append((arg.name, str(outer), arg_type, kind))
        return sorted(arguments, key=lambda argument: kinds.index(argument[3]))

    def _parameters(self) -> tuple[list[str], list[str]]:
        """The kernel's parameters and the prologue lines that turn (buffer, byte offset) pairs into
        typed pointers and CPU scalars' bits into their values."""
        params, prologue = [], []
        for name, _, arg_type, kind in self._arguments():
            if kind == "size":
                params.append(f"const long {name}")
            elif kind == "scalar":
                params.append(f"const long {name}_bits")
                prologue.append(f"const {value_type(arg_type)} {name} = {_scalar_from_bits(arg_type, name + '_bits')};")
            else:
                storage = _types(arg_type)[1]
                params.append(f"__global char* {name}_buffer, ulong {name}_offset")
                prologue.append(f"__global {storage}* {name} = (__global {storage}*)({name}_buffer + {name}_offset);")
        for tree in self.range_trees:
            params.append(f"const long {tree.prefix}numel")
        if self.reports_errors:
            params.append("FOO_ERROR_PARAM")
        return params, prologue

    def codegen_kernel(self, name: str | None = None) -> str:
        self.codegen_body()
        if self.after_column_loop:
            self.body.do_unindent()
            self.body.writeline("}")  # the loop over blocks after the first column loop
        loops = (
            self._reduction_loops()
            if self.loop == ROWS
            else self._column_loops()
            if self.loop == COLUMNS
            else self._lanes_loops()
        )
        return self._kernel_source(name, loops)

    def _reduction_loops(self) -> IndentedBuffer:
        """A reduction's loop over its rows (the grid loop), its values LANES[ROWS] wide on every device:
        a work-item takes a whole row."""
        x = self.range_trees[0]
        code = IndentedBuffer()
        code.writeline(f"#define FOO_W {self.lanes}")
        code.writeline(f"FOO_GRID_LOOP({x.name}, {x.prefix}numel) {{")
        with code.indent():
            code.splice(self.x_indexing)
            code.splice(self.body)
        code.writeline("}")
        code.writeline("#undef FOO_W")
        return code

    def _lanes_loops(self) -> IndentedBuffer:
        """A pointwise kernel's loops (and a reduction's over columns, each output's body a loop
        over its column): on CPU devices a work-item's range (from a multiple of its lanes) in
        blocks of that many lanes, then the rest one at a time; elsewhere its grid loop's elements
        one at a time."""
        code = IndentedBuffer()
        numel = f"{self.range_trees[0].prefix}numel"
        code.writeline("#ifdef FOO_CPU_DEVICE")
        code.writeline(f"#define FOO_W {self.lanes}")
        unit = "FOO_RANDOM_TILE_SPAN" if self.random_tiles else "FOO_W"
        code.writeline(f"FOO_BLOCK_RANGE(foo_x, foo_blocks_end, foo_end, {numel}, FOO_W, {unit});")
        code.writeline("for (; foo_x < foo_blocks_end; foo_x += FOO_W) {")
        with code.indent():
            code.splice(self.body)
        code.writeline("}")
        code.writeline("#undef FOO_W")
        code.writeline("for (; foo_x < foo_end; ++foo_x) {")
        code.writeline("#else")
        code.writeline(f"FOO_GRID_LOOP(foo_x, {numel}) {{")
        code.writeline("#endif")
        code.writeline("#define FOO_W 1")
        with code.indent():
            code.splice(self.body)
        code.writeline("#undef FOO_W")
        code.writeline("}")
        return code

    def _column_loops(self) -> IndentedBuffer:
        """A reduction over columns' loops, as a pointwise kernel's (_lanes_loops) over blocks of
        FOO_W columns from foo_x0: on CPU devices first turns of COLUMN_GROUP blocks, reading
        COLUMN_GROUP * FOO_W consecutive elements of each row (a block alone reads half a line a
        row, a page apart: see COLUMN_GROUP), then blocks alone, then columns alone."""
        code = IndentedBuffer()
        numel = f"{self.range_trees[0].prefix}numel"
        group = COLUMN_GROUP if self.column_groups and not self.random_tiles else 1

        def turn(blocks: int) -> None:
            """A turn's body, of FOO_G = blocks blocks from foo_x0; the caller closes its loop."""
            code.writeline(f"#define FOO_G {blocks}")
            with code.indent():
                code.writeline("const INDEX_T foo_x = foo_x0;")
                code.splice(self.body)

        code.writeline("#ifdef FOO_CPU_DEVICE")
        code.writeline(f"#define FOO_W {self.lanes}")
        code.writeline(f"FOO_BLOCK_RANGE(foo_x0, foo_blocks_end, foo_end, {numel}, FOO_W, FOO_W * {group});")
        for blocks in sorted({group, 1}, reverse=True):
            code.writeline(f"for (; foo_x0 + FOO_W * {blocks} <= foo_blocks_end; foo_x0 += FOO_W * {blocks}) {{")
            turn(blocks)
            code.writelines(["}", "#undef FOO_G"])
        code.writeline("#undef FOO_W")
        code.writeline("for (; foo_x0 < foo_end; ++foo_x0) {")
        code.writeline("#else")
        code.writeline(f"FOO_GRID_LOOP(foo_x0, {numel}) {{")
        code.writeline("#endif")
        code.writeline("#define FOO_W 1")
        turn(1)
        code.writelines(["#undef FOO_G", "#undef FOO_W", "}"])
        return code

    def _kernel_source(self, name: str | None, loops: IndentedBuffer) -> str:
        params, prologue = self._parameters()
        code = IndentedBuffer()
        code.writeline("#define INDEX_T long")
        if self.special_dtype is not None:
            code.writeline(f"#define COMPUTE {value_type(self.special_dtype)}")
            code.writeline("#define COMPUTE_IS_FLOAT")
            code.writelines(['#include "compute.clh"', '#include "special.clh"', '#include "special_bessel.clh"'])
        code.writeline('#include "inductor.clh"')
        code.writeline("")
        code.writeline(f"__kernel void {name or 'KERNEL_NAME'}(")
        with code.indent():
            code.writelines([p + ("," if i < len(params) - 1 else ") {") for i, p in enumerate(params)])
        with code.indent():
            code.writelines(prologue)
            code.writelines(f"FOO_RANDOM_TILE({tile});" for tile in self.random_tiles)
            code.splice(loops)
        code.writeline("}")
        return code.getvalue()

    def call_kernel(self, name: str, node: Any = None, deallocate_ws: bool = True) -> None:
        wrapper = V.graph.wrapper_code
        arguments = self._arguments()
        for outer in self.args.sizevars:
            wrapper.ensure_size_computed(outer)
        args = [f"scalar_bits({outer})" if kind == "scalar" else outer for _, outer, _, kind in arguments]
        tensors = sum(kind == "tensor" for *_, kind in arguments)
        grid_arg = len(args)
        for tree in self.range_trees:
            if isinstance(tree.numel, (sympy.Integer, int)):
                args.append(str(tree.numel))
            else:
                args.append(str(wrapper.generate_numel_expr(name, tree).inner))
        wrapper.kernel_layouts[name] = (tensors, grid_arg, self.loop)
        wrapper.generate_kernel_call(name, args, device=V.graph.get_current_device_or_throw(), triton=False)


# The range variable at a block's lane 0, in pointwise kernels and in reductions' loops.
_FOO_X = sympy.Symbol("foo_x", integer=True, nonnegative=True)
_FOO_R = sympy.Symbol("foo_r", integer=True, nonnegative=True)
_LANE = sympy.Symbol("foo_l", integer=True, nonnegative=True)  # a lane, in loops over FOO_W lanes


def _lane(var: Any, lane: sympy.Expr | int) -> str:
    """Lane `lane` of a value variable."""
    return _lane_of(lane_type(_dtype_of(var) or torch.float32), var, lane)


def _lane_of(t: str, name: Any, lane: sympy.Expr | int | str) -> str:
    """Lane `lane` of variable `name`, whose lanes have C type t."""
    return f"FOO_LANE({t}, {name}, {lane})"


def _lane_offsets(
    index: sympy.Expr, root: sympy.Symbol, lanes: int, row: int | sympy.Expr = 0
) -> list[sympy.Expr] | None:
    """How far index at each lane of a block lies from index at lane 0, where those are constants,
    else None. A block's root variable is lanes * q + lane for some q, so a floor division by a
    divisor of the alignment its operand is known to have, or a remainder modulo a multiple of
    it, moves by a constant from lane to lane (pooling windows' index 2 * (x % 8) + 32 * (x // 8)
    in blocks of 16: 0, 2, ..., 14, 32, 34, ...). With `row`, of blocks that lie within one row,
    the root's aligned segments of that length (the kernel checks at each block: FOO_IN_ROW): a
    floor division by a multiple of the row is then the same in every lane, and a remainder modulo
    a multiple of it moves as its operand does (padding's 56 * (x // 58 % 58) + x % 58 in rows of 58;
    with dynamic shapes, rows of a size symbol)."""
    # An expression as B + c[lane], B the same in every lane and a multiple of `align` (0: B is 0),
    # its lanes' values within one aligned segment of length `seg` (0: none known).
    Form = tuple[int, list[sympy.Expr], int | sympy.Expr]
    same = (1, [sympy.S.Zero] * lanes, 0)  # the same value in every lane

    def floordiv(form: Form, divisor: sympy.Expr) -> Form | None:
        align, c, seg = form
        if all(x == c[0] for x in c):  # a function of a value the same in every lane
            return same
        if seg and _size(divisor) and _multiple(divisor, seg):  # one segment of d holds every lane's value
            return same
        if not isinstance(divisor, sympy.Integer) or divisor <= 0 or not all(isinstance(x, sympy.Integer) for x in c):
            return None
        d = int(divisor)
        if align % d == 0:  # (B + c) // d == B // d + c // d
            return (
                align // d,
                [sympy.Integer(int(x) // d) for x in c],
                sympy.cancel(sympy.sympify(seg) / d) if seg and _multiple(seg, d) else 0,
            )
        if align and d % align == 0 and all(0 <= int(x) < align for x in c):  # B // d in every lane
            return same
        return None

    def of(e: sympy.Expr) -> Form | None:
        if root not in e.free_symbols:
            return (0, [e] * lanes, 0) if isinstance(e, sympy.Integer) else same
        if e == root:
            return lanes, [sympy.Integer(lane) for lane in range(lanes)], row
        if isinstance(e, Identity):  # (Inductor's guard against simplification, as in cat's indices)
            return of(e.args[0])
        if isinstance(e, sympy.Add):
            forms = [of(a) for a in e.args]
            if any(f is None for f in forms):
                return None
            return math.gcd(*(f[0] for f in forms)), [sympy.Add(*x) for x in zip(*(f[1] for f in forms))], 0
        if isinstance(e, sympy.Mul):
            scale, rest = e.as_independent(root, as_Add=False)
            form = of(rest) if rest != e else None
            if form is None:
                return None
            if form[0] == 0 or isinstance(scale, sympy.Integer):
                align = abs(form[0] * int(scale)) if form[0] else 0
            else:
                align = 1  # a multiple of a symbol: no known alignment
            seg = form[2] * int(scale) if isinstance(scale, sympy.Integer) and scale > 0 else 0
            return align, [scale * x for x in form[1]], seg
        if isinstance(e, FloorDiv):
            form = of(e.args[0])
            return None if form is None else floordiv(form, e.args[1])
        if isinstance(e, ModularIndexing):
            form = of(e.args[0])
            form = None if form is None else floordiv(form, e.args[1])
            modulus = e.args[2]
            if form is None:
                return None
            align, c, seg = form
            if all(x == c[0] for x in c):
                return same
            if seg and _size(modulus) and _multiple(modulus, seg):  # B % m + c, in one segment of m
                return math.gcd(align, int(modulus)) if isinstance(modulus, sympy.Integer) else 1, c, seg
            if not isinstance(modulus, sympy.Integer):
                return None
            m = int(modulus)
            if align % m == 0:  # B % m == 0
                return 0, [sympy.Integer(int(x) % m) for x in c], 0
            if m % align == 0 and all(0 <= int(x) < align for x in c):  # B % m + c stays below m
                return align, c, 0
        return None

    form = of(index)
    return None if form is None else [sympy.expand(x - form[1][0]) for x in form[1]]


def _size(n: sympy.Expr) -> bool:
    """Whether n is a positive number or a size of a dynamic shape (Inductor's size symbols are only
    known not to be negative; a kernel that divides by one of 0 has no elements)."""
    return bool(n.is_positive or (n.free_symbols and n.is_integer and n.is_nonnegative))


def _multiple(b: sympy.Expr, a: int | sympy.Expr) -> bool:
    """Whether b is a known multiple of a (integers, or products of size symbols)."""
    return bool(sympy.cancel(sympy.sympify(b) / a).is_integer)


def _row_lengths(index: sympy.Expr, lanes: int) -> list[int | sympy.Expr]:
    """The row lengths _lane_offsets may take for index: its floor divisions' divisors and its
    remainders' periods that a block of `lanes` fits in without being a multiple of it, shortest first,
    then sizes of dynamic shapes (symbols, which blocks fit in where they are large enough)."""
    lengths = {e.args[1] for e in index.atoms(FloorDiv)}
    for e in index.atoms(ModularIndexing):
        lengths |= {e.args[1], e.args[1] * e.args[2]}
    numbers = sorted(int(n) for n in lengths if isinstance(n, sympy.Integer) and n > lanes and n % lanes)
    symbols = sorted((n for n in lengths if n.free_symbols and _size(n)), key=str)
    return [*numbers, *symbols]


def _cpu_scalar(name: str) -> bool:
    """Whether buffer `name` is a 0-d CPU tensor, such as an optimizer's step count: a kernel takes its
    value (runtime.scalar_bits, read as the kernel is enqueued), not its address, as Triton's do.
    Inductor's own list of these (Scheduler.update_zero_dim_cpu_tensor) holds only GPU nodes' reads."""
    if V.graph.is_unspec_arg(name):
        return True
    buffer = V.graph.try_get_buffer(name)
    return (
        isinstance(buffer, ir.IRNode)
        and ir.get_device_type(buffer) == "cpu"
        and not isinstance(buffer.get_output_spec(), (ir.NoneLayout, ir.MultiOutputLayout))
        and len(buffer.get_size()) == 0
    )


def _scalar_from_bits(dtype: torch.dtype, bits: str) -> str:
    """A CPU scalar's value from the 64 bits runtime.scalar_bits passes: a float32's (also float16's and
    bfloat16's, passed as float32) in the low 32, a float64's in all, an integer's value."""
    if dtype == torch.float64:
        return f"as_double({bits})"
    if dtype.is_floating_point:
        return f"as_float((int){bits})"
    if dtype == torch.bool:
        return f"({bits} != 0)"
    return f"({value_type(dtype)}){bits}"


def _element(var: str, dtype: torch.dtype, position: str) -> str:
    """The value of buffer var's element at position."""
    if dtype == torch.float16:
        return f"vload_half({position}, {var})"
    if dtype == torch.bfloat16:
        return f"foo_bf16_to_float({var}[{position}])"
    if dtype == torch.bool:
        return f"({var}[{position}] != 0)"
    return f"{var}[{position}]"


def _vector_load(var: str, dtype: torch.dtype, base: str, every_other: bool) -> str:
    """The lanes' elements of buffer var from base, in vector loads: consecutive elements, or
    (every_other) elements base, base + 2, ..."""
    if dtype == torch.float16:
        return f"FOO_LANES_LOAD_HALF_EVEN({var}, {base})" if every_other else f"FOO_LANES_LOAD_HALF({var}, {base})"
    unsigned = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}[dtype.itemsize]
    load = f"FOO_LANES_LOAD_EVEN({var}, {base}, {unsigned})" if every_other else f"FOO_LANES_LOAD({var}, {base})"
    if dtype == torch.bfloat16:
        return f"FOO_BF16_TO_FLOAT({load})"
    if dtype == torch.bool:
        return f"FOO_BOOL({load} != (uchar)0)"
    return load


def _element_store(var: str, dtype: torch.dtype, position: str, value: str) -> str:
    """A statement writing value to buffer var's element at position."""
    if dtype == torch.float16:
        return f"vstore_half_rte((float){value}, {position}, {var});"
    if dtype == torch.bfloat16:
        return f"{var}[{position}] = foo_float_to_bf16((float){value});"
    return f"{var}[{position}] = ({_types(dtype)[1]}){value};"


# Reductions that fold one accumulator: the combination (a format of {acc} and {value}) and the
# initial value (None: the dtype's lowest value for max, highest for min). any's values are bools,
# 0 or 1 (a vector comparison's true is -1: a column's any of one came out as -1.0 in float).
_FOLDS: dict[str, tuple[str, str | None]] = {
    "sum": ("{acc} + {value}", "0"),
    "prod": ("{acc} * {value}", "1"),
    "xor_sum": ("{acc} ^ {value}", "0"),
    "any": ("{acc} | {value}", "false"),
    "max": ("FOO_MAX({acc}, {value})", None),
    "min": ("FOO_MIN({acc}, {value})", None),
}


def _extreme(dtype: torch.dtype, highest: bool) -> str:
    if dtype.is_floating_point:
        return "INFINITY" if highest else "(-INFINITY)"
    if dtype == torch.bool:
        return "true" if highest else "false"
    info = torch.iinfo(dtype)
    return _literal(info.max if highest else info.min, dtype)


_ATOMIC_NAMES = {
    torch.float32: "float",
    torch.float64: "double",
    torch.float16: "half",
    torch.bfloat16: "bfloat16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.bool: "bool",
}


def _atomic_name(dtype: torch.dtype) -> str:
    if dtype not in _ATOMIC_NAMES:
        raise NotImplementedError(f"foo-cl: compiled kernels have no atomic add for {dtype}")
    return _ATOMIC_NAMES[dtype]


def _reads_along_outputs(nodes: list[Any]) -> bool:
    """Whether more of the reads of reduction nodes that change along a row are contiguous along
    the outputs (column sums: consecutive outputs, consecutive elements) than along the row. Such
    reductions take their lanes along the outputs; Inductor's hint that says so (OUTER) is only
    given to reductions it splits."""
    along_outputs = along_rows = 0
    for node in nodes:
        body = node._body
        if not body.iter_vars or not body.reduce_vars:
            continue
        for index in body.get_read_exprs():
            output_stride, row_stride = V.graph.sizevars.stride_hints(index, [body.iter_vars[-1], body.reduce_vars[-1]])
            along_rows += row_stride == 1
            along_outputs += output_stride == 1 and row_stride not in (0, 1)
    return along_outputs > along_rows


def symbol_is_reduction(symbol: sympy.Symbol) -> bool:
    return symbol_is_type(symbol, (SymT.R0_INDEX, SymT.R1_INDEX))


class OpenCLScheduling(SIMDScheduling):
    kernel_type = OpenCLKernel  # type: ignore[assignment]

    @classmethod
    def get_backend_features(cls, device: torch.device) -> OrderedSet[BackendFeature]:
        # Not REDUCE_TO_SINGLE_ELEMENT: a row is one work-item's loop, so long reductions to few outputs
        # are better split by Inductor into partial reductions and a second kernel (one work-item's sum of
        # 2**22 floats was 7.6e-6 off, its variance 1.6e-4, and column sums of 262144x64 floats took 10x
        # eager's time).
        return OrderedSet(
            [
                BackendFeature.INPLACE_BUFFERS,
                BackendFeature.TUPLE_REDUCTION,
                BackendFeature.PREFER_STORE_LOOP_ORDER,
            ]
        )

    @classmethod
    def get_tiling_and_scores(cls, node_schedule, numel, reduction_numel=sympy.S.One, coalesce_analysis=None):
        # One flattened pointwise range: a work-item walks outputs in order.
        return cls.create_tiling([numel], [reduction_numel]), None

    def define_kernel(self, src_code: str, node_schedule: Any, kernel: OpenCLKernel) -> str:
        wrapper = V.graph.wrapper_code
        if src_code in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[src_code]
        # Named as Triton's kernels are (foo_poi_fused_add_relu_3), so profiles tell the kernels apart.
        fused = get_fused_kernel_name(node_schedule, config.triton.descriptive_names)
        category = "poi" if kernel.numels.get("r0_", 1) == 1 else "red"
        name = "_".join(part for part in ("foo", category, fused, wrapper.next_kernel_suffix()) if part)
        wrapper.src_to_kernel[src_code] = name
        source = src_code.replace("KERNEL_NAME", name)
        origins, detailed = get_kernel_metadata(node_schedule, wrapper)
        wrapper.header.writeline(f"# {origins}")
        for line in detailed.splitlines():
            wrapper.header.writeline(f"# {line}")
        wrapper.header.writeline(f"{name}_source = '''")
        for line in source.rstrip("\n").splitlines():
            wrapper.header.writeline(line)
        wrapper.header.writeline("'''")
        wrapper.pending_kernels[name] = f"{name}_source"
        return name


class WrapperCodegen(PythonWrapperCodegen):
    """Python wrapper code whose foo kernel calls go to foo_cl.inductor.runtime.FooKernel."""

    def __init__(self) -> None:
        super().__init__()
        self.kernel_layouts: dict[str, tuple[int, int, str]] = {}
        self.pending_kernels: dict[str, str] = {}

    @staticmethod
    def create(is_subgraph: bool, subgraph_name: str | None, parent_wrapper: Any, partition_signatures: Any = None):
        if is_subgraph:
            from torch._inductor.codegen.wrapper import SubgraphPythonWrapperCodegen

            return SubgraphPythonWrapperCodegen(subgraph_name, parent_wrapper, partition_signatures)
        return WrapperCodegen()

    def write_header(self) -> None:
        super().write_header()
        self.header.writeline("from foo_cl.inductor.runtime import FooKernel, scalar_bits")

    def _generate_kernel_call_helper(self, kernel_name: str, call_args: Any, *, device=None, triton=True, **kwargs):
        device = device or V.graph.get_current_device_or_throw()
        if device.type != "foo":
            return super()._generate_kernel_call_helper(kernel_name, call_args, device=device, triton=triton, **kwargs)
        if kernel_name in self.pending_kernels:
            tensors, grid_arg, loop = self.kernel_layouts[kernel_name]
            source = self.pending_kernels.pop(kernel_name)
            self.header.writeline(
                f"{kernel_name} = FooKernel({kernel_name!r}, {source}, {tensors}, {grid_arg}, {loop!r})"
            )
        self.writeline(self.wrap_kernel_call(kernel_name, call_args))


class FooDeviceOpOverrides(DeviceOpOverrides):
    """Wrapper code's device calls on foo."""

    def import_get_raw_stream_as(self, name: str) -> str:
        return f"def {name}(_):\n    return 0"  # generated kernels launch on the current stream

    def set_device(self, device_idx: int) -> str:
        return f"torch.foo.set_device({device_idx})"

    def synchronize(self) -> str:
        return "torch.foo.synchronize()"

    def device_guard(self, device_idx: int) -> str:
        return f"torch.foo.device({device_idx})"

    def cpp_kernel_type(self) -> str:
        return "void*"


class CodegenVersion(CustomGraphModulePass):
    """A graph pass that changes nothing: its uuid puts foo's code generator and kernels (this
    package's sources and the extension, which holds kernels_cl/) in Inductor's cache keys, so a
    compiled graph cached by another foo-cl is never reused."""

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        pass

    def uuid(self) -> Any:
        digest = hashlib.sha256()
        for path in sorted(Path(__file__).parent.glob("*.py")):
            digest.update(path.read_bytes())
        stat = os.stat(_C.__file__)
        digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.hexdigest()


class CppWrapperCodegen(PythonWrapperCodegen):
    """cpp_wrapper and AOTInductor need a C++ launcher foo-cl does not have."""

    @staticmethod
    def create(*args: Any) -> Any:
        raise NotImplementedError("foo-cl: torch.compile on foo supports the Python wrapper only (cpp_wrapper=False)")


def _convolves_on_foo(gm: torch.fx.GraphModule) -> bool:
    for node in gm.graph.find_nodes(op="call_function", target=torch.ops.aten.convolution.default):
        value = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
        if isinstance(value, torch.Tensor) and value.device.type == "foo":
            return True
    return False


def _nchw_for_foo(decide: Any) -> Any:
    """GraphLowering.decide_layout_opt, but no channels-last layout for graphs that convolve on foo.
    Inductor turns a training graph's convolutions channels-last for cuDNN; foo's convolutions are
    im2col and GEMM over NCHW, whose channels-last backward measured 20-45% slower (the small CNN's
    convolutions, pthread-skylake-avx512-AMD EPYC), which made its compiled training step slower than
    eager. TORCHINDUCTOR_FORCE_LAYOUT_OPT=1 still forces it."""

    @functools.wraps(decide)
    def decide_layout_opt(gm: torch.fx.GraphModule, *args: Any, **kwargs: Any) -> bool:
        if _convolves_on_foo(gm) and not config.force_layout_optimization:
            return False
        return decide(gm, *args, **kwargs)

    decide_layout_opt.foo_nchw = True
    return decide_layout_opt


def _eager_on_foo(op: torch._ops.OpOverload, fallback: Any, needed: Any = lambda: True) -> None:
    """`op` runs foo's own kernel in compiled graphs on foo (Inductor's `fallback` lowering) where
    `needed()` holds as the op is lowered, else Inductor's lowering; it is not decomposed on foo.
    Other devices keep Inductor's handling."""
    decompose = decomposition.decompositions.get(op)
    if decompose is not None and not getattr(decompose, "foo_eager", False):

        @functools.wraps(decompose)
        def decomposition_off_foo(x: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            return NotImplemented if x.device.type == "foo" else decompose(x, *args, **kwargs)

        decomposition_off_foo.foo_eager = True
        decomposition.decompositions[op] = decomposition_off_foo
    lower = lowering.lowerings[op]
    if not getattr(lower, "foo_eager", False):

        @functools.wraps(lower)
        def lowering_off_foo(x: Any, *args: Any, **kwargs: Any) -> Any:
            device = x.get_device()
            if device is not None and device.type == "foo" and needed():
                return fallback(x, *args, **kwargs)
            return lower(x, *args, **kwargs)

        lowering_off_foo.foo_eager = True
        lowering.lowerings[op] = lowering_off_foo


def _indices_used() -> bool:
    """Whether the graph may read the indices (output 1) of the max pooling being lowered."""
    node = V.graph.current_node
    return node is None or any(user.target is not operator.getitem or user.args[1] == 1 for user in node.users)


def _max_pooling_eager_on_foo() -> None:
    """Max pooling with indices (training's) and its backward run foo's own kernels (pool/max_pool.cl).
    - Forward: Inductor's argmax over each window is a chain of 64-bit selects per tap, and the
      backward converts its int8 window offsets to indices in a kernel of their own: 0.4 ms of the
      small CNN's compiled step for its two poolings, against 0.11 ms eager; at 16x16x32x32, 116
      against 55 us (pthread-skylake-avx512-AMD EPYC). A pooling whose indices the graph does not
      read (inference) is still generated, fused with its neighbours.
    - Backward: PyTorch decomposes it into a scatter_add, which generated code does with an atomic
      add per element (compare-and-swap loops, kernels_cl/atomics.clh), and Inductor's own lowering
      gathers over the windows holding each input element, a gather it inlines into every consumer:
      the small CNN's pooling backwards took 0.4-0.5 ms of its compiled step either way, against
      0.18 ms eager (the same device)."""
    aten = torch.ops.aten
    forward = aten.max_pool2d_with_indices.default
    _eager_on_foo(forward, lowering.fallback_handler(forward, add_to_fallback_set=False), _indices_used)
    _eager_on_foo(aten.max_pool2d_with_indices_backward.default, lowering.fallback_max_pool2d_with_indices_backward)


def _true_for_foo(predicate: Any) -> Any:
    """An Inductor predicate of a device type that holds for GPUs, made to hold for foo too:
    - lowering.is_gpu: a pointwise op goes to its first input's device unless another input is on a
      GPU. An op whose first input is a 0-d CPU tensor, torch.where(cpu_condition, x, y) or
      cpu_scalar * x on foo tensors, became a CPU kernel reading foo memory, which crashed. On foo,
      as eagerly, the scalar goes with the device tensors (_cpu_scalar).
    - scheduler.device_need_guard: the wrapper enters each kernel's device (FooDeviceOpOverrides.
      device_guard), where its buffers are allocated. Without it a graph on foo:1 allocated on the
      current device, foo:0."""

    @functools.wraps(predicate)
    def or_foo(device_type: str | None) -> bool:
        return device_type == "foo" or predicate(device_type)

    or_foo.foo = True
    return or_foo


def register() -> None:
    if not getattr(GraphLowering.decide_layout_opt, "foo_nchw", False):
        GraphLowering.decide_layout_opt = staticmethod(_nchw_for_foo(GraphLowering.decide_layout_opt))
    for module, name in ((lowering, "is_gpu"), (scheduler, "device_need_guard")):
        if not getattr(getattr(module, name), "foo", False):
            setattr(module, name, _true_for_foo(getattr(module, name)))
    _max_pooling_eager_on_foo()
    register_device_op_overrides("foo", FooDeviceOpOverrides())
    register_backend_for_device(
        "foo",
        OpenCLScheduling,
        WrapperCodegen,
        CppWrapperCodegen,
        WrapperFxCodegen,
        device_custom_pass=CodegenVersion(),
    )
