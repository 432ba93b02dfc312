// Unary elementwise operators: math functions, rounding, sign and bit tests, each one line naming
// its kernels_cl/unary/<op>.cl program. Structured ops reuse PyTorch's meta functions (integer
// inputs of float functions promote to the default float dtype, as on CPU).
#include "aten/Pointwise.h"

#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>

#include <ATen/ops/acos_meta.h>
#include <ATen/ops/acosh_meta.h>
#include <ATen/ops/asin_meta.h>
#include <ATen/ops/asinh_meta.h>
#include <ATen/ops/atan_meta.h>
#include <ATen/ops/atanh_meta.h>
#include <ATen/ops/bitwise_not_meta.h>
#include <ATen/ops/ceil_meta.h>
#include <ATen/ops/cos_meta.h>
#include <ATen/ops/cosh_meta.h>
#include <ATen/ops/erf_meta.h>
#include <ATen/ops/erfc_meta.h>
#include <ATen/ops/erfinv_meta.h>
#include <ATen/ops/exp2_meta.h>
#include <ATen/ops/exp_meta.h>
#include <ATen/ops/expm1_meta.h>
#include <ATen/ops/floor_meta.h>
#include <ATen/ops/frac_meta.h>
#include <ATen/ops/isneginf_meta.h>
#include <ATen/ops/isposinf_meta.h>
#include <ATen/ops/log10_meta.h>
#include <ATen/ops/log1p_meta.h>
#include <ATen/ops/log2_meta.h>
#include <ATen/ops/log_meta.h>
#include <ATen/ops/neg_meta.h>
#include <ATen/ops/reciprocal_meta.h>
#include <ATen/ops/round_meta.h>
#include <ATen/ops/rsqrt_meta.h>
#include <ATen/ops/sgn_meta.h>
#include <ATen/ops/sigmoid_meta.h>
#include <ATen/ops/sign_meta.h>
#include <ATen/ops/signbit_meta.h>
#include <ATen/ops/sin_meta.h>
#include <ATen/ops/sinc_meta.h>
#include <ATen/ops/sinh_meta.h>
#include <ATen/ops/sqrt_meta.h>
#include <ATen/ops/tan_meta.h>
#include <ATen/ops/tanh_meta.h>
#include <ATen/ops/trunc_meta.h>

#include <ATen/Dispatch.h>
#include <ATen/ops/empty_like.h>

#include <cmath>
#include <limits>

namespace foo_cl::aten {
namespace {

// An iterator from complex `self` to `out` of its real dtype (abs, angle).
at::TensorIterator complex_to_real_op(at::Tensor& out, const at::Tensor& self) {
  TORCH_CHECK(out.scalar_type() == c10::toRealValueType(self.scalar_type()), "Expected out tensor to have dtype ",
              c10::toRealValueType(self.scalar_type()), ", but got ", out.scalar_type(), " instead");
  return at::TensorIteratorConfig().add_output(out).add_const_input(self).check_all_same_dtype(false).build();
}

// abs and angle: a complex input gives values of its real dtype (computed in complex); a real one
// goes through the iterator `real_op` builds, as CPU's.
at::Tensor& real_valued_unary(const at::Tensor& self, at::Tensor& out, const std::string& key,
                              at::TensorIterator (*real_op)(at::TensorBase&, const at::TensorBase&)) {
  if (self.is_complex()) {
    auto iter = complex_to_real_op(out, self);
    launch::launch_pointwise(iter, key, {}, self.scalar_type());
    return out;
  }
  auto iter = real_op(out, self);
  launch::launch_pointwise(iter, key);
  return out;
}

// Ops PyTorch implements without a structured meta: the iterator is built here, as CPU does.
at::Tensor& abs_out(const at::Tensor& self, at::Tensor& out) {
  return real_valued_unary(self, out, "unary/abs", at::TensorIterator::unary_op);
}

// The argument of complex values; pi or 0 by sign for real ones, integers promoted to the default
// float dtype.
at::Tensor& angle_out(const at::Tensor& self, at::Tensor& out) {
  return real_valued_unary(self, out, "unary/angle", at::TensorIterator::unary_float_op);
}

at::Tensor angle(const at::Tensor& self) {
  const c10::ScalarType type = self.is_complex()                           ? c10::toRealValueType(self.scalar_type())
                               : c10::isIntegralType(self.scalar_type(), true) ? c10::typeMetaToScalarType(at::get_default_dtype())
                                                                              : self.scalar_type();
  at::Tensor out = at::empty({0}, self.options().dtype(type));
  return angle_out(self, out);
}

at::Tensor& conj_physical_out(const at::Tensor& self, at::Tensor& out) {
  auto iter = at::TensorIterator::unary_op(out, self);
  if (self.is_complex()) {
    launch::launch_pointwise(iter, "unary/conj");
  } else {
    out.copy_(self);  // real values are their own conjugates
  }
  return out;
}

// The complex tensor made from two real ones of one floating dtype (polar: magnitude and angle;
// complex: real and imaginary parts), with CPU's dtype checks.
at::Tensor& complex_from_parts(const at::Tensor& a, const at::Tensor& b, at::Tensor& out, const char* key) {
  const c10::ScalarType type = a.scalar_type();
  TORCH_CHECK(type == c10::kFloat || type == c10::kDouble || type == c10::kHalf,
              "Expected both inputs to be Half, Float or Double tensors but got ", type, " and ", b.scalar_type());
  TORCH_CHECK(b.scalar_type() == type, "Expected object of scalar type ", type, " but got scalar type ",
              b.scalar_type(), " for second argument");
  TORCH_CHECK(out.scalar_type() == c10::toComplexType(type), "Expected object of scalar type ",
              c10::toComplexType(type), " but got scalar type ", out.scalar_type(), " for argument 'out'");
  auto iter = at::TensorIteratorConfig()
                  .add_output(out)
                  .add_const_input(a)
                  .add_const_input(b)
                  .check_all_same_dtype(false)
                  .build();
  launch::launch_pointwise(iter, key, {}, type);
  return out;
}

// frexp: mantissa (self's dtype) and int32 exponent, one kernel each.
std::tuple<at::Tensor&, at::Tensor&> frexp_out(const at::Tensor& self, at::Tensor& mantissa, at::Tensor& exponent) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
  TORCH_CHECK(mantissa.dtype() == self.dtype(), "torch.frexp() expects mantissa to have dtype ", self.dtype(),
              " but got ", mantissa.dtype());
  TORCH_CHECK(exponent.dtype() == at::kInt, "torch.frexp() expects exponent to have int dtype but got ",
              exponent.dtype());
  auto mantissas = at::TensorIterator::unary_op(mantissa, self);
  launch::launch_pointwise(mantissas, "unary/frexp_mantissa");
  auto exponents =
      at::TensorIteratorConfig().add_output(exponent).add_const_input(self).check_all_same_dtype(false).build();
  launch::launch_pointwise(exponents, "unary/frexp_exponent", {}, self.scalar_type());
  return {mantissa, exponent};
}

at::Tensor& polar_out(const at::Tensor& abs, const at::Tensor& angle, at::Tensor& out) {
  return complex_from_parts(abs, angle, out, "binary/polar");
}

at::Tensor& complex_out(const at::Tensor& real, const at::Tensor& imag, at::Tensor& out) {
  return complex_from_parts(real, imag, out, "binary/complex");
}

at::Tensor& logical_not_out(const at::Tensor& self, at::Tensor& out) {
  auto iter = at::TensorIteratorConfig().check_all_same_dtype(false).add_output(out).add_const_input(self).build();
  launch::launch_pointwise(iter, "unary/logical_not", {}, self.scalar_type());
  return out;
}

at::Tensor isnan(const at::Tensor& self) {
  at::Tensor out = at::empty_like(self, self.options().dtype(at::kBool));
  auto iter = at::TensorIteratorConfig().check_all_same_dtype(false).add_output(out).add_const_input(self).build();
  launch::launch_pointwise(iter, "unary/isnan", {}, self.scalar_type());
  return out;
}

at::Tensor& nan_to_num_out(const at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                           std::optional<double> neginf, at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
              " should be same as input: ", self.scalar_type());
  // As CPU: integers have no NaN or infinity, so this is a copy (none at all in place).
  if (!c10::isFloatingType(self.scalar_type())) {
    at::native::resize_output(out, self.sizes());
    return out.copy_(self);
  }
  auto iter = at::TensorIterator::unary_op(out, self);
  // The replacements of infinities default to the largest finite values of self's dtype.
  double largest = 0;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "nan_to_num", [&] {
    largest = static_cast<double>(std::numeric_limits<scalar_t>::max());
  });
  launch::launch_pointwise(iter, "unary/nan_to_num",
                           {nan.value_or(0.0), posinf.value_or(largest), neginf.value_or(-largest)});
  return out;
}

template <class Meta>
StructuredKernel<Meta, int64_t> round_decimals_kernel() {
  return [](Meta& iter, int64_t decimals) {
    if (decimals == 0) {
      launch::launch_pointwise(iter, "unary/round");
      return;
    }
    const double ten_pow = std::pow(10.0, static_cast<double>(std::abs(decimals)));
    launch::launch_pointwise(iter, "unary/round_decimals", {ten_pow, decimals < 0 ? -1 : 1});
  };
}

// isposinf and isneginf: as CPU, no integer or bool is infinite (the kernels compare in the input's dtype,
// where infinity has no value).
template <class Meta>
StructuredKernel<Meta> infinity_test(std::string key) {
  return [key = std::move(key)](Meta& iter) {
    if (at::isFloatingType(iter.dtype(1))) {
      launch::launch_pointwise(iter, key);
    } else {
      iter.output().fill_(false);
    }
  };
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  FOO_STRUCTURED_UNARY(m, neg, "unary/neg", Complex::accepted);
  FOO_STRUCTURED_UNARY(m, sign, "unary/sign");
  FOO_STRUCTURED_UNARY(m, sgn, "unary/sign", Complex::accepted);
  FOO_STRUCTURED_UNARY(m, reciprocal, "unary/reciprocal", Complex::accepted);
  FOO_STRUCTURED_UNARY(m, sqrt, "unary/sqrt");
  FOO_STRUCTURED_UNARY(m, rsqrt, "unary/rsqrt");
  FOO_STRUCTURED_UNARY(m, exp, "unary/exp", Complex::accepted);
  FOO_STRUCTURED_UNARY(m, exp2, "unary/exp2");
  FOO_STRUCTURED_UNARY(m, expm1, "unary/expm1");
  FOO_STRUCTURED_UNARY(m, log, "unary/log");
  FOO_STRUCTURED_UNARY(m, log2, "unary/log2");
  FOO_STRUCTURED_UNARY(m, log10, "unary/log10");
  FOO_STRUCTURED_UNARY(m, log1p, "unary/log1p");
  FOO_STRUCTURED_UNARY(m, sin, "unary/sin");
  FOO_STRUCTURED_UNARY(m, cos, "unary/cos");
  FOO_STRUCTURED_UNARY(m, tan, "unary/tan");
  FOO_STRUCTURED_UNARY(m, asin, "unary/asin");
  FOO_STRUCTURED_UNARY(m, acos, "unary/acos");
  FOO_STRUCTURED_UNARY(m, atan, "unary/atan");
  FOO_STRUCTURED_UNARY(m, sinh, "unary/sinh");
  FOO_STRUCTURED_UNARY(m, cosh, "unary/cosh");
  FOO_STRUCTURED_UNARY(m, tanh, "unary/tanh");
  FOO_STRUCTURED_UNARY(m, asinh, "unary/asinh");
  FOO_STRUCTURED_UNARY(m, acosh, "unary/acosh");
  FOO_STRUCTURED_UNARY(m, atanh, "unary/atanh");
  FOO_STRUCTURED_UNARY(m, erf, "unary/erf");
  FOO_STRUCTURED_UNARY(m, erfc, "unary/erfc");
  FOO_STRUCTURED_UNARY(m, erfinv, "unary/erfinv");
  FOO_STRUCTURED_UNARY(m, sigmoid, "unary/sigmoid");
  FOO_STRUCTURED_UNARY(m, floor, "unary/floor");
  FOO_STRUCTURED_UNARY(m, ceil, "unary/ceil");
  FOO_STRUCTURED_UNARY(m, trunc, "unary/trunc");
  FOO_STRUCTURED_UNARY(m, round, "unary/round");
  FOO_STRUCTURED_UNARY(m, frac, "unary/frac");
  FOO_STRUCTURED_UNARY(m, sinc, "unary/sinc");
  FOO_STRUCTURED_UNARY(m, bitwise_not, "unary/bitwise_not");
  register_structured<at::meta::structured_round_decimals, int64_t>(
      m, "round.decimals", "round_.decimals", "round.decimals_out",
      round_decimals_kernel<at::meta::structured_round_decimals>());
  register_structured<at::meta::structured_signbit>(m, "signbit", nullptr, "signbit.out",
                                                    pointwise<at::meta::structured_signbit>("unary/signbit"));
  register_structured<at::meta::structured_isposinf>(m, "isposinf", nullptr, "isposinf.out",
                                                     infinity_test<at::meta::structured_isposinf>("unary/isposinf"));
  register_structured<at::meta::structured_isneginf>(m, "isneginf", nullptr, "isneginf.out",
                                                     infinity_test<at::meta::structured_isneginf>("unary/isneginf"));
  m.impl("abs.out", abs_out);
  m.impl("angle", angle);
  m.impl("angle.out", angle_out);
  m.impl("conj_physical.out", conj_physical_out);
  m.impl("polar.out", polar_out);
  m.impl("frexp.Tensor_out", frexp_out);
  m.impl("complex.out", complex_out);
  m.impl("view_as_real", at::native::view_as_real);
  m.impl("view_as_complex", at::native::view_as_complex);
  m.impl("logical_not.out", logical_not_out);
  m.impl("isnan", isnan);
  m.impl("nan_to_num.out", nan_to_num_out);
}

}  // namespace foo_cl::aten
