// Activation functions and the backward kernels autograd calls for them, each naming its
// kernels_cl/activation/<op>.cl program; bounds, slopes and scales are the kernels' s0..s2.
#include "aten/Pointwise.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/elu_backward_meta.h>
#include <ATen/ops/elu_meta.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/where.h>
#include <ATen/ops/gelu_backward_meta.h>
#include <ATen/ops/gelu_meta.h>
#include <ATen/ops/glu_meta.h>
#include <ATen/ops/hardshrink_backward_meta.h>
#include <ATen/ops/hardshrink_meta.h>
#include <ATen/ops/hardsigmoid_backward_meta.h>
#include <ATen/ops/hardsigmoid_meta.h>
#include <ATen/ops/leaky_relu_backward_meta.h>
#include <ATen/ops/leaky_relu_meta.h>
#include <ATen/ops/logit_backward_meta.h>
#include <ATen/ops/mish_meta.h>
#include <ATen/ops/sigmoid_backward_meta.h>
#include <ATen/ops/silu_backward_meta.h>
#include <ATen/ops/silu_meta.h>
#include <ATen/ops/softplus_backward_meta.h>
#include <ATen/ops/softplus_meta.h>
#include <ATen/ops/softshrink_backward_meta.h>
#include <ATen/ops/softshrink_meta.h>
#include <ATen/ops/tanh_backward_meta.h>
#include <ATen/ops/threshold_backward_meta.h>
#include <ATen/ops/threshold_meta.h>

#include <tuple>

namespace foo_cl::aten {
namespace {

using TensorRef = const at::Tensor&;
using ScalarRef = const at::Scalar&;

const char* gelu_key(c10::string_view approximate, bool backward) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  if (approximate == "tanh") return backward ? "activation/gelu_tanh_backward" : "activation/gelu_tanh";
  return backward ? "activation/gelu_backward" : "activation/gelu";
}

// Ops without a structured meta: the iterator is built here as CPU does.
at::Tensor relu(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return at::clamp_min(self, 0);
}

at::Tensor& relu_(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return at::clamp_min_(self, 0);
}

// As CPU: integer tensors clamp to integer bounds, so the result keeps their dtype.
at::Tensor& hardtanh_out(const at::Tensor& self, const at::Scalar& min, const at::Scalar& max, at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Bool inputs not supported for hardtanh");
  if (!at::isIntegralType(self.scalar_type(), /*includeBool=*/false)) return at::clamp_out(out, self, min, max);
  const int64_t low = min.toLong(), high = max.toLong();
  TORCH_CHECK(self.scalar_type() != at::kByte || (low >= 0 && high >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return at::clamp_out(out, self, low, high);
}

at::Tensor hardtanh(const at::Tensor& self, const at::Scalar& min, const at::Scalar& max) {
  at::Tensor out = at::empty({0}, self.options());
  return hardtanh_out(self, min, max, out);
}

at::Tensor& hardtanh_(at::Tensor& self, const at::Scalar& min, const at::Scalar& max) {
  return hardtanh_out(self, min, max, self);
}

// Unary activations built with TensorIterator::unary_op (functional, in-place, out=).
template <const char* Key>
at::Tensor& unary_out(const at::Tensor& self, at::Tensor& out) {
  auto iter = at::TensorIterator::unary_op(out, self);
  launch::launch_pointwise(iter, Key);
  return out;
}

template <const char* Key>
at::Tensor unary(const at::Tensor& self) {
  at::Tensor out;
  auto iter = at::TensorIterator::unary_op(out, self);
  launch::launch_pointwise(iter, Key);
  return iter.output();
}

template <const char* Key>
at::Tensor& unary_(at::Tensor& self) {
  return unary_out<Key>(self, self);
}

// Backward kernels of the form grad_input = f(grad_output, self).
template <const char* Key>
at::Tensor& backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::Tensor& grad_input) {
  auto iter = at::TensorIterator::borrowing_binary_op(grad_input, grad_output, self);
  launch::launch_pointwise(iter, Key);
  return grad_input;
}

template <const char* Key>
at::Tensor backward(const at::Tensor& grad_output, const at::Tensor& self) {
  at::Tensor grad_input;
  auto iter = at::TensorIterator::borrowing_binary_op(grad_input, grad_output, self);
  launch::launch_pointwise(iter, Key);
  return iter.output();
}

constexpr char kHardswish[] = "activation/hardswish";
constexpr char kHardswishBackward[] = "activation/hardswish_backward";
constexpr char kMishBackward[] = "activation/mish_backward";
constexpr char kLogSigmoid[] = "activation/log_sigmoid";
constexpr char kLogSigmoidBackward[] = "activation/log_sigmoid_backward";

at::Tensor& hardtanh_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Scalar& min,
                                  const at::Scalar& max, at::Tensor& grad_input) {
  auto iter = at::TensorIterator::borrowing_binary_op(grad_input, grad_output, self);
  launch::launch_pointwise(iter, "activation/hardtanh_backward", {min, max});
  return grad_input;
}

at::Tensor hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Scalar& min,
                             const at::Scalar& max) {
  at::Tensor grad_input;
  auto iter = at::TensorIterator::borrowing_binary_op(grad_input, grad_output, self);
  launch::launch_pointwise(iter, "activation/hardtanh_backward", {min, max});
  return iter.output();
}

at::Tensor& logit_out(const at::Tensor& self, std::optional<double> eps, at::Tensor& out) {
  auto iter = at::TensorIterator::unary_float_op(out, self);
  launch::launch_pointwise(iter, "activation/logit", {eps.value_or(-1.0)});
  return out;
}

at::Tensor logit(const at::Tensor& self, std::optional<double> eps) {
  at::Tensor out;
  auto iter = at::TensorIterator::unary_float_op(out, self);
  launch::launch_pointwise(iter, "activation/logit", {eps.value_or(-1.0)});
  return iter.output();
}

at::Tensor& logit_(at::Tensor& self, std::optional<double> eps) {
  return logit_out(self, eps, self);
}

// Like CUDA, the forward needs no buffer: the backward recomputes from self.
std::tuple<at::Tensor&, at::Tensor&> log_sigmoid_forward_out(const at::Tensor& self, at::Tensor& output,
                                                             at::Tensor& buffer) {
  unary_out<kLogSigmoid>(self, output);
  buffer.resize_({0});
  return {output, buffer};
}

std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor& self) {
  return {unary<kLogSigmoid>(self), at::empty({0}, self.options())};
}

at::Tensor& log_sigmoid_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor&,
                                     at::Tensor& grad_input) {
  return backward_out<kLogSigmoidBackward>(grad_output, self, grad_input);
}

at::Tensor log_sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor&) {
  return backward<kLogSigmoidBackward>(grad_output, self);
}

// glu's gradient: for out = a * sigmoid(b), g * sigmoid(b) for a and g * a * sigmoid(b) * (1 -
// sigmoid(b)) for b.
at::Tensor glu_grad(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  const std::vector<at::Tensor> halves = self.chunk(2, dim);
  const at::Tensor gate = at::sigmoid(halves[1]);
  const at::Tensor grad_a = grad_output * gate;
  return at::cat({grad_a, grad_a * halves[0] * (1 - gate)}, dim);
}

at::Tensor& glu_backward_out(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim,
                             at::Tensor& grad_input) {
  at::native::resize_output(grad_input, self.sizes());
  return grad_input.copy_(glu_grad(grad_output, self, dim));
}

// prelu: x where positive, else weight * x, with the weight broadcast to x's shape.
at::Tensor prelu(const at::Tensor& self, const at::Tensor& weight) {
  at::Tensor out;
  auto iter = at::TensorIteratorConfig().add_output(out).add_const_input(self).add_const_input(weight).build();
  launch::launch_pointwise(iter, "activation/prelu");
  return iter.output();
}

// Both gradients in x's shape (autograd sums the weight's over its broadcast dims).
std::tuple<at::Tensor, at::Tensor> prelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                  const at::Tensor& weight) {
  const at::Tensor positive = self > 0;
  return {at::where(positive, grad_output, weight * grad_output), at::where(positive, 0, self * grad_output)};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using Threshold = at::meta::structured_threshold;
  register_structured<Threshold, ScalarRef, ScalarRef>(
      m, "threshold", "threshold_", "threshold.out", [](Threshold& iter, ScalarRef threshold, ScalarRef value) {
        launch::launch_pointwise(iter, "activation/threshold", {threshold, value});
      });
  using ThresholdBackward = at::meta::structured_threshold_backward;
  register_structured<ThresholdBackward, TensorRef, ScalarRef>(
      m, "threshold_backward", nullptr, "threshold_backward.grad_input",
      [](ThresholdBackward& iter, TensorRef, ScalarRef threshold) {
        launch::launch_pointwise(iter, "activation/threshold", {threshold, 0});
      });
  m.impl("relu", relu);
  m.impl("relu_", relu_);
  m.impl("hardtanh", hardtanh);
  m.impl("hardtanh_", hardtanh_);
  m.impl("hardtanh.out", hardtanh_out);
  m.impl("hardtanh_backward", hardtanh_backward);
  m.impl("hardtanh_backward.grad_input", hardtanh_backward_out);

  using Gelu = at::meta::structured_gelu;
  register_structured<Gelu, c10::string_view>(m, "gelu", "gelu_", "gelu.out", [](Gelu& iter, c10::string_view approx) {
    launch::launch_pointwise(iter, gelu_key(approx, false));
  });
  using GeluBackward = at::meta::structured_gelu_backward;
  register_structured<GeluBackward, TensorRef, c10::string_view>(
      m, "gelu_backward", nullptr, "gelu_backward.grad_input",
      [](GeluBackward& iter, TensorRef, c10::string_view approx) {
        launch::launch_pointwise(iter, gelu_key(approx, true));
      });

  FOO_STRUCTURED_UNARY(m, silu, "activation/silu");
  register_structured<at::meta::structured_silu_backward, TensorRef>(
      m, "silu_backward", nullptr, "silu_backward.grad_input",
      pointwise<at::meta::structured_silu_backward, TensorRef>("activation/silu_backward"));
  FOO_STRUCTURED_UNARY(m, mish, "activation/mish");
  m.impl("mish_backward", backward<kMishBackward>);
  FOO_STRUCTURED_UNARY(m, hardsigmoid, "activation/hardsigmoid");
  register_structured<at::meta::structured_hardsigmoid_backward, TensorRef>(
      m, "hardsigmoid_backward", nullptr, "hardsigmoid_backward.grad_input",
      pointwise<at::meta::structured_hardsigmoid_backward, TensorRef>("activation/hardsigmoid_backward"));
  m.impl("hardswish", unary<kHardswish>);
  m.impl("hardswish_", unary_<kHardswish>);
  m.impl("hardswish.out", unary_out<kHardswish>);
  m.impl("hardswish_backward", backward<kHardswishBackward>);
  m.impl("hardswish_backward.out", backward_out<kHardswishBackward>);

  register_structured<at::meta::structured_hardshrink, ScalarRef>(
      m, "hardshrink", nullptr, "hardshrink.out", [](at::meta::structured_hardshrink& iter, ScalarRef lambd) {
        launch::launch_pointwise(iter, "activation/hardshrink", {lambd});
      });
  register_structured<at::meta::structured_softshrink, ScalarRef>(
      m, "softshrink", nullptr, "softshrink.out", [](at::meta::structured_softshrink& iter, ScalarRef lambd) {
        launch::launch_pointwise(iter, "activation/softshrink", {lambd});
      });
  register_structured<at::meta::structured_hardshrink_backward, TensorRef, ScalarRef>(
      m, "hardshrink_backward", nullptr, "hardshrink_backward.grad_input",
      [](at::meta::structured_hardshrink_backward& iter, TensorRef, ScalarRef lambd) {
        launch::launch_pointwise(iter, "activation/shrink_backward", {lambd});
      });
  register_structured<at::meta::structured_softshrink_backward, TensorRef, ScalarRef>(
      m, "softshrink_backward", nullptr, "softshrink_backward.grad_input",
      [](at::meta::structured_softshrink_backward& iter, TensorRef, ScalarRef lambd) {
        launch::launch_pointwise(iter, "activation/shrink_backward", {lambd});
      });
  register_structured<at::meta::structured_glu, int64_t>(m, "glu", nullptr, "glu.out",
                                                         [](at::meta::structured_glu& iter, int64_t) {
                                                           launch::launch_pointwise(iter, "activation/glu");
                                                         });
  m.impl("glu_backward", glu_grad);
  m.impl("glu_backward.grad_input", glu_backward_out);
  m.impl("_prelu_kernel", prelu);
  m.impl("_prelu_kernel_backward", prelu_backward);

  using Softplus = at::meta::structured_softplus;
  register_structured<Softplus, ScalarRef, ScalarRef>(
      m, "softplus", nullptr, "softplus.out", [](Softplus& iter, ScalarRef beta, ScalarRef threshold) {
        launch::launch_pointwise(iter, "activation/softplus", {beta, threshold});
      });
  using SoftplusBackward = at::meta::structured_softplus_backward;
  register_structured<SoftplusBackward, TensorRef, ScalarRef, ScalarRef>(
      m, "softplus_backward", nullptr, "softplus_backward.grad_input",
      [](SoftplusBackward& iter, TensorRef, ScalarRef beta, ScalarRef threshold) {
        launch::launch_pointwise(iter, "activation/softplus_backward", {beta, threshold});
      });

  using Elu = at::meta::structured_elu;
  register_structured<Elu, ScalarRef, ScalarRef, ScalarRef>(
      m, "elu", "elu_", "elu.out", [](Elu& iter, ScalarRef alpha, ScalarRef scale, ScalarRef input_scale) {
        launch::launch_pointwise(iter, "activation/elu", {alpha.toDouble() * scale.toDouble(), scale, input_scale});
      });
  using EluBackward = at::meta::structured_elu_backward;
  register_structured<EluBackward, ScalarRef, ScalarRef, ScalarRef, bool, TensorRef>(
      m, "elu_backward", nullptr, "elu_backward.grad_input",
      [](EluBackward& iter, ScalarRef alpha, ScalarRef scale, ScalarRef input_scale, bool is_result, TensorRef) {
        launch::launch_pointwise(iter, is_result ? "activation/elu_backward_result" : "activation/elu_backward",
                                 {alpha.toDouble() * scale.toDouble(), scale, input_scale});
      });

  using LeakyRelu = at::meta::structured_leaky_relu;
  register_structured<LeakyRelu, ScalarRef>(m, "leaky_relu", "leaky_relu_", "leaky_relu.out",
                                            [](LeakyRelu& iter, ScalarRef slope) {
                                              launch::launch_pointwise(iter, "activation/leaky_relu", {slope});
                                            });
  using LeakyReluBackward = at::meta::structured_leaky_relu_backward;
  register_structured<LeakyReluBackward, TensorRef, ScalarRef, bool>(
      m, "leaky_relu_backward", nullptr, "leaky_relu_backward.grad_input",
      [](LeakyReluBackward& iter, TensorRef, ScalarRef slope, bool) {
        launch::launch_pointwise(iter, "activation/leaky_relu_backward", {slope});
      });

  register_structured<at::meta::structured_sigmoid_backward, TensorRef>(
      m, "sigmoid_backward", nullptr, "sigmoid_backward.grad_input",
      pointwise<at::meta::structured_sigmoid_backward, TensorRef>("activation/sigmoid_backward"));
  register_structured<at::meta::structured_tanh_backward, TensorRef>(
      m, "tanh_backward", nullptr, "tanh_backward.grad_input",
      pointwise<at::meta::structured_tanh_backward, TensorRef>("activation/tanh_backward"));

  m.impl("logit", logit);
  m.impl("logit_", logit_);
  m.impl("logit.out", logit_out);
  using LogitBackward = at::meta::structured_logit_backward;
  register_structured<LogitBackward, TensorRef, std::optional<double>>(
      m, "logit_backward", nullptr, "logit_backward.grad_input",
      [](LogitBackward& iter, TensorRef, std::optional<double> eps) {
        launch::launch_pointwise(iter, "activation/logit_backward", {eps.value_or(-1.0)});
      });

  m.impl("log_sigmoid_forward", log_sigmoid_forward);
  m.impl("log_sigmoid_forward.output", log_sigmoid_forward_out);
  m.impl("log_sigmoid_backward", log_sigmoid_backward);
  m.impl("log_sigmoid_backward.grad_input", log_sigmoid_backward_out);
}

}  // namespace foo_cl::aten
