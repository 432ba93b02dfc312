// Binary elementwise operators: arithmetic, division modes, powers, comparisons, logic and bits,
// each one line naming its kernels_cl/binary/<op>.cl program. Structured ops reuse PyTorch's meta
// functions for type promotion, broadcasting, CPU scalars and out= checks.
#include "aten/Pointwise.h"

#include <ATen/ScalarOps.h>
#include <ATen/ops/add_meta.h>
#include <ATen/ops/atan2_meta.h>
#include <ATen/ops/bitwise_and_meta.h>
#include <ATen/ops/bitwise_left_shift.h>
#include <ATen/ops/bitwise_left_shift_meta.h>
#include <ATen/ops/bitwise_or_meta.h>
#include <ATen/ops/bitwise_right_shift.h>
#include <ATen/ops/bitwise_right_shift_meta.h>
#include <ATen/ops/bitwise_xor_meta.h>
#include <ATen/ops/copysign_meta.h>
#include <ATen/ops/div_meta.h>
#include <ATen/ops/eq_meta.h>
#include <ATen/ops/fmax_meta.h>
#include <ATen/ops/fmin_meta.h>
#include <ATen/ops/fmod_meta.h>
#include <ATen/ops/ge_meta.h>
#include <ATen/ops/gt_meta.h>
#include <ATen/ops/heaviside_meta.h>
#include <ATen/ops/hypot_meta.h>
#include <ATen/ops/le_meta.h>
#include <ATen/ops/lerp_meta.h>
#include <ATen/ops/logaddexp_meta.h>
#include <ATen/ops/lt_meta.h>
#include <ATen/ops/maximum_meta.h>
#include <ATen/ops/minimum_meta.h>
#include <ATen/ops/mul_meta.h>
#include <ATen/ops/ne_meta.h>
#include <ATen/ops/nextafter_meta.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/pow_meta.h>
#include <ATen/ops/remainder_meta.h>
#include <ATen/ops/sub_meta.h>
#include <ATen/ops/xlogy_meta.h>
#include <ATen/ops/zeros_like.h>

namespace foo_cl::aten {
namespace {

using TensorRef = const at::Tensor&;
using ScalarRef = const at::Scalar&;

// CPU raises for integer division by zero; a device cannot trap, so the divisor is checked here.
// NOTE: this reads the divisor back to the host, which only integer division pays.
void check_integer_divisor(const at::TensorIteratorBase& iter) {
  if (c10::isFloatingType(iter.common_dtype()) || iter.numel() == 0) return;
  const at::Tensor& divisor = iter.tensor(2);
  TORCH_CHECK(!divisor.to(c10::kCPU).eq(0).any().item<bool>(), "ZeroDivisionError");
}

// CPU PyTorch has no kernel for these dtypes and raises NotImplementedError naming them.
void check_dtype_allowed(const at::TensorIteratorBase& iter, const char* op, bool allow_float, bool allow_bool) {
  const auto dtype = iter.common_dtype();
  TORCH_CHECK_NOT_IMPLEMENTED((allow_float || !c10::isFloatingType(dtype)) && (allow_bool || dtype != at::kBool),
                              "\"", op, "_cpu\" not implemented for '", c10::toString(dtype), "'");
}

template <class Meta, class... Rest>
StructuredKernel<Meta, Rest...> integer_checked(std::string key, const char* op) {
  return [key = std::move(key), op](Meta& iter, Rest...) {
    check_dtype_allowed(iter, op, true, false);
    check_integer_divisor(iter);
    launch::launch_pointwise(iter, key);
  };
}

// Bitwise ops exist for integers and bool only.
template <class Meta>
StructuredKernel<Meta, const at::Tensor&> bitwise(std::string key, const char* op) {
  return [key = std::move(key), op](Meta& iter, const at::Tensor&) {
    check_dtype_allowed(iter, op, false, true);
    launch::launch_pointwise(iter, key);
  };
}

at::Tensor rsub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return at::sub(other, self, alpha);
}

at::Tensor remainder_scalar_tensor(const at::Scalar& self, const at::Tensor& other) {
  return at::remainder(at::native::wrapped_scalar_tensor(self), other);
}

at::Tensor& remainder_scalar_tensor_out(const at::Scalar& self, const at::Tensor& other, at::Tensor& out) {
  return at::remainder_out(out, at::native::wrapped_scalar_tensor(self), other);
}

// Python's << and >> (aten::__lshift__ and kin): the bitwise shifts by another name, as on CPU.
void register_shift_operators(torch::Library& m) {
  m.impl("__lshift__.Tensor", [](const at::Tensor& self, const at::Tensor& other) {
    return at::bitwise_left_shift(self, other);
  });
  m.impl("__lshift__.Scalar", [](const at::Tensor& self, const at::Scalar& other) {
    return at::bitwise_left_shift(self, other);
  });
  m.impl("__ilshift__.Tensor", [](at::Tensor& self, const at::Tensor& other) -> at::Tensor& {
    return self.bitwise_left_shift_(other);
  });
  m.impl("__ilshift__.Scalar", [](at::Tensor& self, const at::Scalar& other) -> at::Tensor& {
    return self.bitwise_left_shift_(other);
  });
  m.impl("__rshift__.Tensor", [](const at::Tensor& self, const at::Tensor& other) {
    return at::bitwise_right_shift(self, other);
  });
  m.impl("__rshift__.Scalar", [](const at::Tensor& self, const at::Scalar& other) {
    return at::bitwise_right_shift(self, other);
  });
  m.impl("__irshift__.Tensor", [](at::Tensor& self, const at::Tensor& other) -> at::Tensor& {
    return self.bitwise_right_shift_(other);
  });
  m.impl("__irshift__.Scalar", [](at::Tensor& self, const at::Scalar& other) -> at::Tensor& {
    return self.bitwise_right_shift_(other);
  });
}

template <class Meta>
void register_alpha_op(torch::Library& m, const char* name, bool negate_alpha) {
  const std::string f = std::string(name) + ".Tensor", i = std::string(name) + "_.Tensor", o = std::string(name) + ".out";
  register_structured<Meta, TensorRef, ScalarRef>(m, f.c_str(), i.c_str(), o.c_str(),
                                                  [negate_alpha](Meta& iter, TensorRef, ScalarRef alpha) {
                                                    launch::launch_pointwise(iter, "binary/add",
                                                                             {negate_alpha ? -alpha : alpha});
                                                  },
                                                  Complex::accepted);
}

using DivMode = at::meta::structured_div_Tensor_mode;

void div_mode_kernel(DivMode& iter, TensorRef, std::optional<c10::string_view> mode) {
  if (!mode) {
    launch::launch_pointwise(iter, "binary/div");
    return;
  }
  TORCH_CHECK(*mode == "trunc" || *mode == "floor",
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
  check_integer_divisor(iter);
  launch::launch_pointwise(iter, *mode == "trunc" ? "binary/div_trunc" : "binary/div_floor");
}

at::Tensor& floor_divide_into(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  auto iter = at::TensorIterator::binary_op(out, self, other);
  check_dtype_allowed(iter, "div_floor", true, false);
  check_integer_divisor(iter);
  launch::launch_pointwise(iter, "binary/div_floor");
  return out;
}

at::Tensor floor_divide_functional(const at::Tensor& self, const at::Tensor& other) {
  at::Tensor out;
  auto iter = at::TensorIterator::binary_op(out, self, other);
  check_dtype_allowed(iter, "div_floor", true, false);
  check_integer_divisor(iter);
  launch::launch_pointwise(iter, "binary/div_floor");
  return iter.output();
}

at::Tensor& floor_divide_inplace(at::Tensor& self, const at::Tensor& other) {
  return floor_divide_into(self, other, self);
}

// pow with a scalar exponent, with CPU's shortcuts (fill for 0, copy for 1, sqrt, rsqrt and
// reciprocal for 0.5, -0.5 and -1, products for 2, 3 and -2), whose results differ from pow's in
// the last ulp and in the sign of zero.
using PowTensorScalar = at::meta::structured_pow_Tensor_Scalar;

const char* pow_shortcut(c10::ScalarType dtype, const at::Scalar& exponent) {
  const bool floating = dtype == at::kFloat || dtype == at::kDouble || dtype == at::kBFloat16;
  if (!floating) return nullptr;
  if (exponent.equal(0.5)) return "unary/sqrt";
  if (exponent.equal(-0.5)) return "unary/rsqrt";
  if (exponent.equal(-1.0)) return "unary/reciprocal";
  if (exponent.equal(2.0)) return "unary/square";
  if (exponent.equal(3.0)) return "unary/cube";
  if (exponent.equal(-2.0)) return "unary/reciprocal_square";
  return nullptr;
}

void pow_tensor_scalar_kernel(PowTensorScalar& iter, ScalarRef exponent) {
  const at::Tensor& out = iter.maybe_get_output(0);
  if (exponent.equal(0.0) || exponent.equal(false)) {
    out.fill_(1);
  } else if (exponent.equal(1.0) || exponent.equal(true)) {
    out.copy_(iter.tensor(1));
  } else if (const char* shortcut = pow_shortcut(iter.common_dtype(), exponent)) {
    launch::launch_pointwise(iter, shortcut);
  } else if (iter.common_dtype() == at::kHalf) {
    // As CPU: a float16 or bfloat16 power rounds its exponent to that dtype (raising if it overflows).
    launch::launch_pointwise(iter, "unary/pow", {exponent.to<at::Half>()});
  } else if (iter.common_dtype() == at::kBFloat16) {
    launch::launch_pointwise(iter, "unary/pow", {exponent.to<at::BFloat16>()});
  } else {
    launch::launch_pointwise(iter, "unary/pow", {exponent});
  }
}

at::Tensor pow_scalar(const at::Scalar& self, const at::Tensor& exponent) {
  return at::pow(at::native::wrapped_scalar_tensor(self), exponent);
}

at::Tensor& pow_scalar_out(const at::Scalar& self, const at::Tensor& exponent, at::Tensor& out) {
  return at::pow_out(out, at::native::wrapped_scalar_tensor(self), exponent);
}

// Logical binary ops (output bool unless out= says otherwise), built as CPU's comparison_op.
template <const char* Key>
at::Tensor& logical_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  auto iter = at::TensorIterator::comparison_op(out, self, other);
  launch::launch_pointwise(iter, Key);
  return out;
}

// The result lives on the foo operand's device, also when `self` is a 0-dim CPU tensor.
template <const char* Key>
at::Tensor logical(const at::Tensor& self, const at::Tensor& other) {
  const at::Tensor& on_foo = self.device().type() == c10::DeviceType::PrivateUse1 ? self : other;
  at::Tensor out = at::empty({0}, on_foo.options().dtype(at::kBool));
  return logical_out<Key>(self, other, out);
}

template <const char* Key>
at::Tensor& logical_(at::Tensor& self, const at::Tensor& other) {
  return logical_out<Key>(self, other, self);
}

constexpr char kLogicalAnd[] = "binary/logical_and";
constexpr char kLogicalOr[] = "binary/logical_or";
constexpr char kLogicalXor[] = "binary/logical_xor";

}  // namespace

// eq and ne pass Complex::accepted: the other comparisons are not defined for complex values.
#define FOO_COMPARISON(m, op, ...)                                                                            \
  FOO_STRUCTURED_BINARY_TENSOR_VARIANTS(m, op, "binary/" #op __VA_OPT__(, ) __VA_ARGS__);                     \
  register_structured<at::meta::structured_##op##_Scalar, ScalarRef>(                                        \
      m, #op ".Scalar", #op "_.Scalar", #op ".Scalar_out",                                                    \
      pointwise<at::meta::structured_##op##_Scalar, ScalarRef>("binary/" #op) __VA_OPT__(, ) __VA_ARGS__)

// Comparison-style naming: "<op>.Tensor", "<op>_.Tensor", "<op>.Tensor_out".
#define FOO_STRUCTURED_BINARY_TENSOR_VARIANTS(m, op, key, ...)                                               \
  register_structured<at::meta::structured_##op##_Tensor, TensorRef>(                                        \
      m, #op ".Tensor", #op "_.Tensor", #op ".Tensor_out",                                                    \
      pointwise<at::meta::structured_##op##_Tensor, TensorRef>(key) __VA_OPT__(, ) __VA_ARGS__)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_alpha_op<at::meta::structured_add_Tensor>(m, "add", false);
  register_alpha_op<at::meta::structured_sub_Tensor>(m, "sub", true);
  FOO_STRUCTURED_BINARY_TENSOR(m, mul, "binary/mul", Complex::accepted);
  FOO_STRUCTURED_BINARY_TENSOR(m, div, "binary/div", Complex::accepted);
  register_structured<DivMode, TensorRef, std::optional<c10::string_view>>(m, "div.Tensor_mode", "div_.Tensor_mode",
                                                                           "div.out_mode", div_mode_kernel);
  m.impl("floor_divide", floor_divide_functional);
  m.impl("floor_divide_.Tensor", floor_divide_inplace);
  m.impl("floor_divide.out", floor_divide_into);
  register_structured<at::meta::structured_remainder_Tensor, TensorRef>(
      m, "remainder.Tensor", "remainder_.Tensor", "remainder.Tensor_out",
      integer_checked<at::meta::structured_remainder_Tensor, TensorRef>("binary/remainder", "remainder"));
  m.impl("remainder.Scalar_Tensor", remainder_scalar_tensor);
  m.impl("remainder.Scalar_Tensor_out", remainder_scalar_tensor_out);
  m.impl("rsub.Tensor", rsub);
  register_structured<at::meta::structured_fmod_Tensor, TensorRef>(
      m, "fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out",
      integer_checked<at::meta::structured_fmod_Tensor, TensorRef>("binary/fmod", "fmod"));

  register_structured<at::meta::structured_pow_Tensor_Tensor, TensorRef>(
      m, "pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out",
      [](at::meta::structured_pow_Tensor_Tensor& iter, TensorRef) {
        check_dtype_allowed(iter, "pow", true, false);
        launch::launch_pointwise(iter, "binary/pow");
      });
  register_structured<PowTensorScalar, ScalarRef>(m, "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Scalar_out",
                                                  pow_tensor_scalar_kernel);
  m.impl("pow.Scalar", pow_scalar);
  m.impl("pow.Scalar_out", pow_scalar_out);

  FOO_STRUCTURED_BINARY(m, atan2, "binary/atan2");
  FOO_STRUCTURED_BINARY(m, hypot, "binary/hypot");
  FOO_STRUCTURED_BINARY(m, nextafter, "binary/nextafter");
  FOO_STRUCTURED_BINARY(m, heaviside, "binary/heaviside");
  FOO_STRUCTURED_BINARY_TENSOR(m, copysign, "binary/copysign");
  register_structured<at::meta::structured_xlogy_Tensor, TensorRef>(
      m, "xlogy.Tensor", "xlogy_.Tensor", "xlogy.OutTensor",
      pointwise<at::meta::structured_xlogy_Tensor, TensorRef>("binary/xlogy"));
  register_structured<at::meta::structured_logaddexp, TensorRef>(
      m, "logaddexp", nullptr, "logaddexp.out", pointwise<at::meta::structured_logaddexp, TensorRef>("binary/logaddexp"));
  register_structured<at::meta::structured_maximum, TensorRef>(
      m, "maximum", nullptr, "maximum.out", pointwise<at::meta::structured_maximum, TensorRef>("binary/maximum"));
  register_structured<at::meta::structured_minimum, TensorRef>(
      m, "minimum", nullptr, "minimum.out", pointwise<at::meta::structured_minimum, TensorRef>("binary/minimum"));
  register_structured<at::meta::structured_fmax, TensorRef>(m, "fmax", nullptr, "fmax.out",
                                                            pointwise<at::meta::structured_fmax, TensorRef>("binary/fmax"));
  register_structured<at::meta::structured_fmin, TensorRef>(m, "fmin", nullptr, "fmin.out",
                                                            pointwise<at::meta::structured_fmin, TensorRef>("binary/fmin"));

  FOO_COMPARISON(m, eq, Complex::accepted);
  FOO_COMPARISON(m, ne, Complex::accepted);
  FOO_COMPARISON(m, lt);
  FOO_COMPARISON(m, le);
  FOO_COMPARISON(m, gt);
  FOO_COMPARISON(m, ge);
  m.impl("logical_and", logical<kLogicalAnd>);
  m.impl("logical_and_", logical_<kLogicalAnd>);
  m.impl("logical_and.out", logical_out<kLogicalAnd>);
  m.impl("logical_or", logical<kLogicalOr>);
  m.impl("logical_or_", logical_<kLogicalOr>);
  m.impl("logical_or.out", logical_out<kLogicalOr>);
  m.impl("logical_xor", logical<kLogicalXor>);
  m.impl("logical_xor_", logical_<kLogicalXor>);
  m.impl("logical_xor.out", logical_out<kLogicalXor>);

  register_structured<at::meta::structured_bitwise_and_Tensor, TensorRef>(
      m, "bitwise_and.Tensor", "bitwise_and_.Tensor", "bitwise_and.Tensor_out", bitwise<at::meta::structured_bitwise_and_Tensor>("binary/bitwise_and", "bitwise_and"));
  register_structured<at::meta::structured_bitwise_or_Tensor, TensorRef>(
      m, "bitwise_or.Tensor", "bitwise_or_.Tensor", "bitwise_or.Tensor_out", bitwise<at::meta::structured_bitwise_or_Tensor>("binary/bitwise_or", "bitwise_or"));
  register_structured<at::meta::structured_bitwise_xor_Tensor, TensorRef>(
      m, "bitwise_xor.Tensor", "bitwise_xor_.Tensor", "bitwise_xor.Tensor_out", bitwise<at::meta::structured_bitwise_xor_Tensor>("binary/bitwise_xor", "bitwise_xor"));
  register_structured<at::meta::structured_bitwise_left_shift_Tensor, TensorRef>(
      m, "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor", "bitwise_left_shift.Tensor_out", bitwise<at::meta::structured_bitwise_left_shift_Tensor>("binary/left_shift", "bitwise_left_shift"));
  register_structured<at::meta::structured_bitwise_right_shift_Tensor, TensorRef>(
      m, "bitwise_right_shift.Tensor", "bitwise_right_shift_.Tensor", "bitwise_right_shift.Tensor_out", bitwise<at::meta::structured_bitwise_right_shift_Tensor>("binary/right_shift", "bitwise_right_shift"));
  register_shift_operators(m);

  register_structured<at::meta::structured_lerp_Scalar, TensorRef, ScalarRef>(
      m, "lerp.Scalar", "lerp_.Scalar", "lerp.Scalar_out",
      [](at::meta::structured_lerp_Scalar& iter, TensorRef, ScalarRef weight) {
        launch::launch_pointwise(iter, "binary/lerp", {weight});
      });
  register_structured<at::meta::structured_lerp_Tensor, TensorRef, TensorRef>(
      m, "lerp.Tensor", "lerp_.Tensor", "lerp.Tensor_out",
      pointwise<at::meta::structured_lerp_Tensor, TensorRef, TensorRef>("ternary/lerp"));
}

}  // namespace foo_cl::aten
