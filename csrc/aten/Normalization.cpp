// batch_norm, layer_norm and group_norm, forward and backward, composed of foo's reductions and
// elementwise kernels. Statistics are computed in float32 for float16/bfloat16 inputs (float64
// for float64), as on CUDA; running statistics of batch_norm are updated in place.
#include <ATen/TensorOperators.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/var_mean.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <numeric>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;

c10::ScalarType accumulate(const Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

bool present(const OptionalTensor& t) {
  return t.has_value() && t->defined();
}

// The reduced dims of batch_norm (all but the channel dim 1) and the shape that broadcasts a
// per-channel vector against the input.
std::vector<int64_t> batch_dims(const Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

std::vector<int64_t> channel_shape(const Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[1] = input.size(1);
  return shape;
}

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& input, const OptionalTensor& weight,
                                              const OptionalTensor& bias, const OptionalTensor& running_mean,
                                              const OptionalTensor& running_var, bool training, double momentum,
                                              double eps) {
  const c10::DeviceGuard guard(input.device());
  const Tensor x = input.to(accumulate(input));
  const auto dims = batch_dims(input);
  const auto shape = channel_shape(input);
  Tensor mean, invstd;
  if (training) {
    const int64_t n = input.numel() / input.size(1);
    TORCH_CHECK(n > 1, "Expected more than 1 value per channel when training, got input size ", input.sizes());
    Tensor var;
    std::tie(var, mean) = at::var_mean(x, dims, /*correction=*/0);
    invstd = (var + eps).rsqrt_();
    if (present(running_mean)) running_mean->mul_(1 - momentum).add_(mean, momentum);
    if (present(running_var)) {
      running_var->mul_(1 - momentum).add_(var, momentum * static_cast<double>(n) / static_cast<double>(n - 1));
    }
  } else {
    mean = running_mean->to(x.scalar_type());
    invstd = (running_var->to(x.scalar_type()) + eps).rsqrt_();
  }
  Tensor scale = present(weight) ? invstd * weight->to(x.scalar_type()) : invstd;
  Tensor shift = -mean * scale;
  if (present(bias)) shift.add_(bias->to(x.scalar_type()));
  Tensor out = (x * scale.view(shape) + shift.view(shape)).to(input.scalar_type());
  if (!training) {
    return {out, at::empty({0}, x.options()), at::empty({0}, x.options())};
  }
  return {out, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const OptionalTensor& weight,
                                                       const OptionalTensor& running_mean,
                                                       const OptionalTensor& running_var,
                                                       const OptionalTensor& save_mean,
                                                       const OptionalTensor& save_invstd, bool train, double eps,
                                                       std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = accumulate(input);
  const Tensor x = input.to(acc), g = grad_out.to(acc);
  const auto dims = batch_dims(input);
  const auto shape = channel_shape(input);
  const Tensor mean = (train ? *save_mean : *running_mean).to(acc);
  const Tensor invstd = train ? save_invstd->to(acc) : (running_var->to(acc) + eps).rsqrt_();
  const Tensor xhat = (x - mean.view(shape)) * invstd.view(shape);
  const Tensor grad_bias = g.sum(dims);
  const Tensor grad_weight = (g * xhat).sum(dims);
  Tensor grad_input;
  if (output_mask[0]) {
    const Tensor scale = present(weight) ? invstd * weight->to(acc) : invstd;
    if (train) {
      const double n = static_cast<double>(input.numel() / input.size(1));
      grad_input = (g - (grad_bias / n).view(shape) - xhat * (grad_weight / n).view(shape)) * scale.view(shape);
    } else {
      grad_input = g * scale.view(shape);
    }
    grad_input = grad_input.to(input.scalar_type());
  }
  const c10::ScalarType param = present(weight) ? weight->scalar_type() : input.scalar_type();
  return {grad_input, output_mask[1] ? grad_weight.to(param) : Tensor(),
          output_mask[2] ? grad_bias.to(param) : Tensor()};
}

// Input as [rows, normalized elements] in the accumulate dtype.
Tensor as_rows(const Tensor& input, int64_t normalized) {
  return input.contiguous().view({-1, normalized}).to(accumulate(input));
}

int64_t numel_of(c10::IntArrayRef shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// mean and rstd have the input's leading dims and size 1 in the normalized ones.
std::vector<int64_t> stat_shape(const Tensor& input, c10::IntArrayRef normalized_shape) {
  std::vector<int64_t> shape = input.sizes().vec();
  for (size_t d = shape.size() - normalized_shape.size(); d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& input, c10::IntArrayRef normalized_shape,
                                              const OptionalTensor& weight, const OptionalTensor& bias, double eps) {
  const c10::DeviceGuard guard(input.device());
  const int64_t n = numel_of(normalized_shape);
  TORCH_CHECK(input.dim() >= static_cast<int64_t>(normalized_shape.size()) &&
                  input.sizes().slice(input.dim() - normalized_shape.size()) == normalized_shape,
              "Given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
              c10::Join(", ", normalized_shape), "], but got input of size", input.sizes());
  const Tensor x = as_rows(input, n);
  auto [var, mean] = at::var_mean(x, {1}, /*correction=*/0, /*keepdim=*/true);
  const Tensor rstd = (var + eps).rsqrt_();
  Tensor out = (x - mean) * rstd;
  if (present(weight)) out.mul_(weight->reshape({1, n}));
  if (present(bias)) out.add_(bias->reshape({1, n}));
  const auto stats = stat_shape(input, normalized_shape);
  return {out.view(input.sizes()).to(input.scalar_type()), mean.view(stats), rstd.view(stats)};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       c10::IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const OptionalTensor& weight,
                                                       const OptionalTensor& bias, std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const int64_t n = numel_of(normalized_shape);
  const Tensor x = as_rows(input, n), g = as_rows(grad_out, n);
  const Tensor r = rstd.reshape({-1, 1}).to(x.scalar_type());
  const Tensor xhat = (x - mean.reshape({-1, 1}).to(x.scalar_type())) * r;
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor gw = present(weight) ? g * weight->reshape({1, n}).to(x.scalar_type()) : g;
    grad_input = (r * (gw - gw.mean(1, true) - xhat * (gw * xhat).mean(1, true)))
                     .view(input.sizes())
                     .to(input.scalar_type());
  }
  if (output_mask[1] && present(weight)) grad_weight = (g * xhat).sum(0).view(weight->sizes()).to(weight->scalar_type());
  if (output_mask[2] && present(bias)) grad_bias = g.sum(0).view(bias->sizes()).to(bias->scalar_type());
  return {grad_input, grad_weight, grad_bias};
}

std::tuple<Tensor, Tensor, Tensor> group_norm(const Tensor& input, const OptionalTensor& weight,
                                              const OptionalTensor& bias, int64_t n, int64_t c, int64_t hw,
                                              int64_t groups, double eps) {
  const c10::DeviceGuard guard(input.device());
  const Tensor x = input.contiguous().view({n, groups, -1}).to(accumulate(input));
  auto [var, mean] = at::var_mean(x, {2}, /*correction=*/0, /*keepdim=*/true);
  const Tensor rstd = (var + eps).rsqrt_();
  Tensor out = ((x - mean) * rstd).view({n, c, hw});
  if (present(weight)) out.mul_(weight->view({1, c, 1}));
  if (present(bias)) out.add_(bias->view({1, c, 1}));
  return {out.view(input.sizes()).to(input.scalar_type()), mean.view({n, groups}), rstd.view({n, groups})};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                                       const Tensor& rstd, const OptionalTensor& weight, int64_t n,
                                                       int64_t c, int64_t hw, int64_t groups,
                                                       std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = accumulate(input);
  const Tensor x = input.contiguous().view({n, groups, -1}).to(acc);
  const Tensor g = grad_out.contiguous().view({n, c, hw}).to(acc);
  const Tensor r = rstd.view({n, groups, 1}).to(acc);
  const Tensor xhat = (x - mean.view({n, groups, 1}).to(acc)) * r;
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor gw = (present(weight) ? g * weight->view({1, c, 1}).to(acc) : g).view({n, groups, -1});
    grad_input = (r * (gw - gw.mean(2, true) - xhat * (gw * xhat).mean(2, true)))
                     .view(input.sizes())
                     .to(input.scalar_type());
  }
  const c10::ScalarType param = present(weight) ? weight->scalar_type() : input.scalar_type();
  if (output_mask[1]) grad_weight = (g * xhat.view({n, c, hw})).sum({0, 2}).to(param);
  if (output_mask[2]) grad_bias = g.sum({0, 2}).to(param);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("native_batch_norm", batch_norm);
  m.impl("native_batch_norm_backward", batch_norm_backward);
  m.impl("native_layer_norm", layer_norm);
  m.impl("native_layer_norm_backward", layer_norm_backward);
  m.impl("native_group_norm", group_norm);
  m.impl("native_group_norm_backward", group_norm_backward);
}

}  // namespace foo_cl::aten
