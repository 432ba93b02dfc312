// Random sampling: PyTorch's own random ops (argument checks, normal with tensor mean/std, bernoulli
// out=, multinomial without replacement) over foo kernels behind their dispatch stubs
// (kernels_cl/random/), native dropout, and randperm (random buckets, each shuffled).
#include "launch/Random.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/bernoulli_native.h>
#include <ATen/ops/cauchy_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/exponential_native.h>
#include <ATen/ops/geometric_native.h>
#include <ATen/ops/log_normal_native.h>
#include <ATen/ops/multinomial_native.h>
#include <ATen/ops/native_dropout_backward_native.h>
#include <ATen/ops/normal_native.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/random_native.h>
#include <ATen/ops/uniform_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <limits>
#include <type_traits>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using Gen = std::optional<at::Generator>;

// Continuous distributions draw 64 bits per float64 element (53-bit uniforms), 32 otherwise.
int float_bits(c10::ScalarType type) {
  return type == c10::kDouble ? 64 : 32;
}

// As CPU: continuous distributions and bernoulli probabilities need floating dtypes.
void check_floating(c10::ScalarType type, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(type), "\"", op, "\" not implemented for '", c10::toString(type),
                              "'");
}

void fill(at::TensorIteratorBase& iter, const char* key, Gen gen, double s0, double s1 = 0) {
  const Tensor& out = iter.tensor(0);
  launch::launch_random(out, key, float_bits(out.scalar_type()), gen, s0, s1);
}

void uniform_kernel(at::TensorIteratorBase& iter, double from, double to, Gen gen) {
  fill(iter, "random/uniform", gen, from, to);
}

void normal_kernel(const at::TensorBase& self, double mean, double std, Gen gen) {
  check_floating(self.scalar_type(), "normal_");
  launch::launch_random(Tensor(self), "random/normal", float_bits(self.scalar_type()), gen, mean, std);
}

void log_normal_kernel(at::TensorIteratorBase& iter, double mean, double std, Gen gen) {
  check_floating(iter.dtype(0), "log_normal_");
  fill(iter, "random/log_normal", gen, mean, std);
}

void exponential_kernel(at::TensorIteratorBase& iter, double lambda, Gen gen) {
  TORCH_CHECK(c10::isFloatingType(iter.dtype(0)),
              "Exponential distribution is a continuous probability distribution. dtype must be a floating point but "
              "you specified ",
              iter.dtype(0));
  fill(iter, "random/exponential", gen, lambda);
}

void geometric_kernel(at::TensorIteratorBase& iter, double p, Gen gen) {
  TORCH_CHECK_NOT_IMPLEMENTED(iter.dtype(0) != c10::kBool, "\"geometric_\" not implemented for 'Bool'");
  fill(iter, "random/geometric", gen, p);
}

void cauchy_kernel(at::TensorIteratorBase& iter, double median, double sigma, Gen gen) {
  fill(iter, "random/cauchy", gen, median, sigma);
}

void bernoulli_scalar_kernel(const at::TensorBase& self, double p, Gen gen) {
  launch::launch_random(Tensor(self), "random/bernoulli", 32, gen, p, 0);
}

void bernoulli_tensor_kernel(const at::TensorBase& self, const at::TensorBase& p_, Gen gen) {
  check_floating(p_.scalar_type(), "bernoulli_tensor_p_");
  const c10::DeviceGuard guard(self.device());
  const Tensor p = Tensor(p_).to(self.device(), self.scalar_type() == c10::kDouble ? c10::kDouble : c10::kFloat);
  // NOTE: CPU raises for a probability outside [0, 1]; checking costs one wait for the device.
  TORCH_CHECK(p.ge(0).logical_and_(p.le(1)).all().item<bool>(),
              "bernoulli_: expected p_in >= 0 && p_in <= 1 for every probability in p (NaN is not one)");
  launch::launch_random(Tensor(self), "random/bernoulli", 32, gen, 0, 0, p);
}

void random_from_to_kernel(at::TensorIteratorBase& iter, uint64_t range, int64_t base, Gen gen) {
  launch::launch_random_integers(iter.tensor(0), range, base, gen);
}

void random_full_64_bits_range_kernel(at::TensorIteratorBase& iter, Gen gen) {
  launch::launch_random_integers(iter.tensor(0), 0, 0, gen);
}

// random_() without bounds: [0, 2^digits] for floating dtypes (every integer they hold exactly),
// [0, max] for integers, {0, 1} for bool, as CPU.
void random_kernel(at::TensorIteratorBase& iter, Gen gen) {
  uint64_t range = 0;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, iter.dtype(0), "random_", [&] {
    if constexpr (std::is_same_v<scalar_t, bool>) {
      range = 2;
    } else if constexpr (!std::numeric_limits<scalar_t>::is_integer) {
      range = (uint64_t{1} << std::numeric_limits<scalar_t>::digits) + 1;
    } else {
      range = static_cast<uint64_t>(std::numeric_limits<scalar_t>::max()) + 1;
    }
  });
  launch::launch_random_integers(iter.tensor(0), range, 0, gen);
}

// Sampling with replacement from each row of self (weights, 1-D or 2-D) into result [.., n_sample].
void multinomial_with_replacement_kernel(Tensor& result, const Tensor& self, int64_t n_sample, Gen gen) {
  const c10::DeviceGuard guard(self.device());
  const Tensor weights = (self.dim() == 1 ? self.unsqueeze(0) : self).to(
      self.scalar_type() == c10::kDouble ? c10::kDouble : c10::kFloat);
  const Tensor cdf = weights.cumsum(-1);
  // NOTE: CPU's checks: bad weights must raise, not sample garbage. One wait for the device reads
  // all three as bits of one number.
  const int64_t bad = weights.lt(0).any().to(c10::kLong).add_(weights.isfinite().all().logical_not(), 2)
                          .add_(cdf.select(-1, -1).le(0).any(), 4)
                          .item<int64_t>();
  TORCH_CHECK(!(bad & 1), "invalid multinomial distribution (encountering probability entry < 0)");
  TORCH_CHECK(!(bad & 2), "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  TORCH_CHECK(!(bad & 4), "invalid multinomial distribution (sum of probabilities <= 0)");
  const Tensor out = at::empty({cdf.size(0), n_sample}, result.options());
  launch::launch_multinomial(out, cdf, gen);
  result.copy_(out.view(result.sizes()));
}

// A random permutation: the positions of n random 64-bit keys after a stable sort.
Tensor& randperm_out(int64_t n, Gen gen, Tensor& result) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  TORCH_CHECK_NOT_IMPLEMENTED(result.scalar_type() != c10::kBool, "\"randperm\" not implemented for 'Bool'");
  at::native::check_supported_max_int_with_precision(n, result);
  result.resize_({n});
  if (n == 0) return result;
  const c10::DeviceGuard guard(result.device());
  const bool direct = result.scalar_type() == c10::kLong && result.is_contiguous();
  Tensor permutation = direct ? result : at::empty({n}, result.options().dtype(c10::kLong));
  launch::launch_randperm(permutation, gen);
  if (!direct) result.copy_(permutation);
  return result;
}

// As CPU: dropout keeps each element with probability 1 - p and scales kept ones by 1 / (1 - p).
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  if (train.has_value() && !*train) {
    return {input.clone(), at::ones_like(input, input.options().dtype(c10::kBool))};
  }
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  // As CPU, whose input * mask * (1 / (1 - p)) cannot be stored in an integer tensor.
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "result type Float can't be cast to the desired output type ",
              input.scalar_type());
  const c10::DeviceGuard guard(input.device());
  const Tensor x = input.contiguous();
  Tensor out = at::empty_like(x);
  Tensor mask = at::empty_like(x, x.options().dtype(c10::kBool));
  const double p1m = 1. - p;
  launch::launch_dropout(out, mask, x, p1m, p1m == 0 ? 0. : 1. / p1m, std::nullopt);
  return {out, mask};
}

using NormalTensorFloat = Tensor (*)(const Tensor&, double, Gen);
using NormalFloatTensor = Tensor (*)(double, const Tensor&, Gen);
using NormalTensorTensor = Tensor (*)(const Tensor&, const Tensor&, Gen);
using NormalTensorFloatOut = Tensor& (*)(const Tensor&, double, Gen, Tensor&);
using NormalFloatTensorOut = Tensor& (*)(double, const Tensor&, Gen, Tensor&);
using NormalTensorTensorOut = Tensor& (*)(const Tensor&, const Tensor&, Gen, Tensor&);
using BernoulliTensor = Tensor& (*)(Tensor&, const Tensor&, Gen);
using BernoulliFloat = Tensor& (*)(Tensor&, double, Gen);
using RandomFromTo = Tensor& (*)(Tensor&, int64_t, std::optional<int64_t>, Gen);
using RandomTo = Tensor& (*)(Tensor&, int64_t, Gen);
using Random = Tensor& (*)(Tensor&, Gen);

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("uniform_", at::native::uniform_);
  m.impl("normal_", at::native::normal_);
  m.impl("normal.Tensor_float", static_cast<NormalTensorFloat>(at::native::normal));
  m.impl("normal.float_Tensor", static_cast<NormalFloatTensor>(at::native::normal));
  m.impl("normal.Tensor_Tensor", static_cast<NormalTensorTensor>(at::native::normal));
  m.impl("normal.Tensor_float_out", static_cast<NormalTensorFloatOut>(at::native::normal_out));
  m.impl("normal.float_Tensor_out", static_cast<NormalFloatTensorOut>(at::native::normal_out));
  m.impl("normal.Tensor_Tensor_out", static_cast<NormalTensorTensorOut>(at::native::normal_out));
  m.impl("log_normal_", at::native::log_normal_);
  m.impl("exponential_", at::native::exponential_);
  m.impl("geometric_", at::native::geometric_);
  m.impl("cauchy_", at::native::cauchy_);
  m.impl("bernoulli_.Tensor", static_cast<BernoulliTensor>(at::native::bernoulli_));
  m.impl("bernoulli_.float", static_cast<BernoulliFloat>(at::native::bernoulli_));
  m.impl("bernoulli.out", at::native::bernoulli_out);
  m.impl("random_.from", static_cast<RandomFromTo>(at::native::random_));
  m.impl("random_.to", static_cast<RandomTo>(at::native::random_));
  m.impl("random_", static_cast<Random>(at::native::random_));
  m.impl("multinomial", at::native::multinomial);
  m.impl("multinomial.out", at::native::multinomial_out);
  m.impl("randperm.generator_out", randperm_out);
  m.impl("native_dropout", native_dropout);
  m.impl("native_dropout_backward", at::native::native_dropout_backward);
}

}  // namespace foo_cl::aten

// PyTorch's random ops above call these stubs with the output's device type.
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(uniform_stub, &foo_cl::aten::uniform_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(normal_stub, &foo_cl::aten::normal_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(log_normal_stub, &foo_cl::aten::log_normal_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(exponential_stub, &foo_cl::aten::exponential_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(geometric_stub, &foo_cl::aten::geometric_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cauchy_stub, &foo_cl::aten::cauchy_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(bernoulli_scalar_stub, &foo_cl::aten::bernoulli_scalar_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(bernoulli_tensor_stub, &foo_cl::aten::bernoulli_tensor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_from_to_stub, &foo_cl::aten::random_from_to_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_full_64_bits_range_stub, &foo_cl::aten::random_full_64_bits_range_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_stub, &foo_cl::aten::random_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(multinomial_with_replacement_stub, &foo_cl::aten::multinomial_with_replacement_kernel)
}  // namespace at::native
