// batch_norm, layer_norm, rms_norm, group_norm and weight_norm, forward and backward: statistics from the moments
// launcher (launch/Norm.h), the rest composed of foo's reductions and elementwise kernels.
// Statistics are computed in float32 for float16/bfloat16 inputs (float64 for float64), as on
// CUDA; running statistics of batch_norm are updated in place.
#include "launch/Dtypes.h"
#include "launch/Norm.h"

#include <ATen/TensorOperators.h>
#include <ATen/native/layer_norm.h>
#include <ATen/ops/add.h>
#include <ATen/ops/addcmul.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/sum.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <limits>
#include <numeric>
#include <vector>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;

// Mean and biased variance of `groups` groups of `outer` blocks of `inner` elements of input.
std::pair<Tensor, Tensor> moments(const Tensor& input, int64_t groups, int64_t outer, int64_t inner) {
  const Tensor mean = at::empty({groups}, input.options().dtype(launch::float_accumulate_type(input.scalar_type())));
  const Tensor var = at::empty({groups}, mean.options());
  launch::launch_moments(input.contiguous(), groups, outer, inner, mean, var);
  return {mean, var};
}

// `t` (computed contiguous) in the memory format of `like`: a channels_last input gives a
// channels_last result, as on CUDA.
Tensor in_format_of(const Tensor& t, const Tensor& like) {
  return t.contiguous(like.suggest_memory_format());
}

bool present(const OptionalTensor& t) {
  return t.has_value() && t->defined();
}

// Contiguous, in the accumulate dtype (or undefined), as the norm kernels read affine parameters.
Tensor parameter(const OptionalTensor& t, c10::ScalarType acc) {
  return present(t) ? t->to(acc).contiguous() : Tensor();
}

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& input, const OptionalTensor& weight,
                                              const OptionalTensor& bias, const OptionalTensor& running_mean,
                                              const OptionalTensor& running_var, bool training, double momentum,
                                              double eps) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous();
  const int64_t channels = x.size(1), n = channels == 0 ? 0 : x.numel() / channels;
  Tensor mean, invstd;
  if (training) {
    TORCH_CHECK(n > 1, "Expected more than 1 value per channel when training, got input size ", input.sizes());
    Tensor var;
    std::tie(mean, var) = moments(x, channels, x.size(0), n / x.size(0));
    invstd = (var + eps).rsqrt_();
    if (present(running_mean)) running_mean->mul_(1 - momentum).add_(mean, momentum);
    if (present(running_var)) {
      running_var->mul_(1 - momentum).add_(var, momentum * static_cast<double>(n) / static_cast<double>(n - 1));
    }
  } else {
    mean = running_mean->to(acc).contiguous();
    invstd = (running_var->to(acc) + eps).rsqrt_();
  }
  Tensor out = at::empty_like(x);
  launch::launch_normalize(x, mean, invstd, parameter(weight, acc), parameter(bias, acc), out, channels,
                           x.numel() / std::max<int64_t>(x.size(0) * channels, 1), /*per_element=*/false);
  out = in_format_of(out, input);
  if (!training) {
    return {out, at::empty({0}, mean.options()), at::empty({0}, mean.options())};
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
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous(), g = grad_out.contiguous();
  const int64_t channels = x.size(1), images = x.size(0);
  const int64_t inner = x.numel() / std::max<int64_t>(images * channels, 1);
  const Tensor mean = (train ? *save_mean : *running_mean).to(acc).contiguous();
  const Tensor invstd = train ? save_invstd->to(acc).contiguous() : (running_var->to(acc) + eps).rsqrt_();
  // Per channel: sum(grad) (the bias gradient) and sum(grad * xhat) (the weight gradient).
  const Tensor sums = launch::launch_group_sums(g, x, mean, invstd, Tensor(), channels, images, inner, false);
  Tensor grad_input;
  if (output_mask[0]) {
    const Tensor w = parameter(weight, acc);
    grad_input = at::empty_like(x);
    launch::launch_input_grad(g, x, mean, invstd, w, w.defined() ? sums * w.view({channels, 1}) : sums, grad_input,
                              channels, inner, static_cast<double>(images * inner), false, !train);
    grad_input = in_format_of(grad_input, input);
  }
  const c10::ScalarType param = present(weight) ? weight->scalar_type() : input.scalar_type();
  return {grad_input, output_mask[1] ? sums.select(1, 1).to(param) : Tensor(),
          output_mask[2] ? sums.select(1, 0).to(param) : Tensor()};
}

// The batch_norm entry points of torch.nn.functional and torch.export: the same kernels.
std::tuple<Tensor, Tensor, Tensor> batch_norm_legit(const Tensor& input, const OptionalTensor& weight,
                                                    const OptionalTensor& bias, Tensor& running_mean,
                                                    Tensor& running_var, bool training, double momentum, double eps) {
  return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_no_stats(const Tensor& input, const OptionalTensor& weight,
                                                             const OptionalTensor& bias, bool training,
                                                             double momentum, double eps) {
  return batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_with_update(const Tensor& input, const OptionalTensor& weight,
                                                                  const OptionalTensor& bias, Tensor& running_mean,
                                                                  Tensor& running_var, double momentum, double eps) {
  auto [out, mean, invstd] = batch_norm(input, weight, bias, running_mean, running_var, true, momentum, eps);
  return {out, mean, invstd, at::empty({0}, input.options().dtype(at::kByte))};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward_with_update(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const OptionalTensor& running_mean,
    const OptionalTensor& running_var, const OptionalTensor& save_mean, const OptionalTensor& save_var, bool update,
    double eps, std::array<bool, 3> output_mask, const Tensor&) {
  return batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var, update, eps,
                             output_mask);
}

// SyncBatchNorm's steps (torch.nn.SyncBatchNorm): each process's statistics, their combination
// over processes, normalisation, and the backward's per-channel sums and input gradient.
std::tuple<Tensor, Tensor> batch_norm_stats(const Tensor& input, double eps) {
  const c10::DeviceGuard guard(input.device());
  const Tensor x = input.contiguous();
  const int64_t channels = x.size(1), n = channels == 0 ? 0 : x.numel() / channels;
  auto [mean, var] = moments(x, channels, x.size(0), x.size(0) == 0 ? 0 : n / x.size(0));
  return {mean, (var + eps).rsqrt_()};
}

// Combines processes' statistics (rows of mean and invstd, counts[i] values each), as Chan's
// parallel variance does, and updates the running statistics with the unbiased variance.
std::tuple<Tensor, Tensor> batch_norm_gather_stats_with_counts(const Tensor& input, const Tensor& mean,
                                                              const Tensor& invstd,
                                                              const OptionalTensor& running_mean,
                                                              const OptionalTensor& running_var, double momentum,
                                                              double eps, const Tensor& counts) {
  const c10::DeviceGuard guard(input.device());
  const Tensor n = counts.to(mean.scalar_type()).view({-1, 1});
  const Tensor total = n.sum();
  const Tensor global_mean = (mean * n).sum(0) / total;
  const Tensor var = invstd.pow(-2) - eps;
  const Tensor global_var = (n * (var + (mean - global_mean).pow(2))).sum(0) / total;
  if (present(running_mean)) running_mean->mul_(1 - momentum).add_(global_mean.to(running_mean->dtype()), momentum);
  if (present(running_var)) {
    const Tensor unbiased = global_var * total / (total - 1);
    running_var->mul_(1 - momentum).add_(unbiased.to(running_var->dtype()), momentum);
  }
  return {global_mean, (global_var + eps).rsqrt_()};
}

Tensor batch_norm_elemt(const Tensor& input, const OptionalTensor& weight, const OptionalTensor& bias,
                        const Tensor& mean, const Tensor& invstd, double) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous();
  const int64_t channels = x.size(1);
  Tensor out = at::empty_like(x);
  launch::launch_normalize(x, mean.to(acc).contiguous(), invstd.to(acc).contiguous(), parameter(weight, acc),
                           parameter(bias, acc), out, channels,
                           x.numel() / std::max<int64_t>(x.size(0) * channels, 1), /*per_element=*/false);
  return in_format_of(out, input);
}

// Per channel: sum(dy), sum(dy * (x - mean)), and the weight and bias gradients.
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_backward_reduce(const Tensor& grad_out, const Tensor& input,
                                                                      const Tensor& mean, const Tensor& invstd,
                                                                      const OptionalTensor& weight, bool input_g,
                                                                      bool weight_g, bool bias_g) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous(), g = grad_out.contiguous();
  const int64_t channels = x.size(1), images = x.size(0);
  const int64_t inner = x.numel() / std::max<int64_t>(images * channels, 1);
  const Tensor m = mean.to(acc).contiguous();
  // With rstd 1, the kernel's sum(grad * xhat) is sum(dy * (x - mean)).
  const Tensor sums = launch::launch_group_sums(g, x, m, at::ones_like(m), Tensor(), channels, images, inner, false);
  const Tensor sum_dy = sums.select(1, 0), sum_dy_xmu = sums.select(1, 1);
  const c10::ScalarType param = present(weight) ? weight->scalar_type() : input.scalar_type();
  return {input_g ? sum_dy.contiguous() : Tensor(), input_g ? sum_dy_xmu.contiguous() : Tensor(),
          weight_g ? (sum_dy_xmu * invstd.to(acc)).to(param) : Tensor(), bias_g ? sum_dy.to(param) : Tensor()};
}

// grad_input = invstd * w * (dy - sum_dy / N - (x - mean) * invstd^2 * sum_dy_xmu / N), N = sum(count).
Tensor batch_norm_backward_elemt(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                 const Tensor& invstd, const OptionalTensor& weight, const Tensor& sum_dy,
                                 const Tensor& sum_dy_xmu, const Tensor& count) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous(), g = grad_out.contiguous();
  const int64_t channels = x.size(1);
  const Tensor w = parameter(weight, acc), rstd = invstd.to(acc).contiguous();
  // launch_input_grad's sums are of gw = dy * w and gw * xhat; N divides them on the device.
  Tensor sums = at::stack({sum_dy.to(acc), sum_dy_xmu.to(acc) * rstd}, 1);
  if (w.defined()) sums = sums * w.view({channels, 1});
  sums = (sums / count.to(acc).sum()).contiguous();
  Tensor grad_input = at::empty_like(x);
  launch::launch_input_grad(g, x, mean.to(acc).contiguous(), rstd, w, sums, grad_input, channels,
                            x.numel() / std::max<int64_t>(x.size(0) * channels, 1), 1.0, false, false);
  return in_format_of(grad_input, input);
}

int64_t numel_of(c10::IntArrayRef shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// The product of the leading (not normalized) dims, which may hold a zero even when the normalized
// ones do not, or not when they do.
int64_t leading_rows(const Tensor& input, c10::IntArrayRef normalized_shape) {
  int64_t rows = 1;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(normalized_shape.size()); ++d) rows *= input.size(d);
  return rows;
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
  at::native::_check_layer_norm_inputs(input, normalized_shape, weight.value_or(Tensor()), bias.value_or(Tensor()));
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous();
  const int64_t rows = leading_rows(input, normalized_shape);
  const Tensor mean = at::empty({rows}, x.options().dtype(acc)), rstd = at::empty({rows}, mean.options());
  Tensor out = at::empty_like(x);
  launch::launch_layer_norm(x, parameter(weight, acc), parameter(bias, acc), eps, out, mean, rstd);
  const auto stats = stat_shape(input, normalized_shape);
  return {out, mean.view(stats), rstd.view(stats)};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       c10::IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const OptionalTensor& weight,
                                                       const OptionalTensor& bias, std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const int64_t n = numel_of(normalized_shape);
  const Tensor x = input.contiguous(), g = grad_out.contiguous();
  const int64_t rows = mean.numel();
  const Tensor mu = mean.to(acc).contiguous(), r = rstd.to(acc).contiguous(), w = parameter(weight, acc);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor sums = launch::launch_group_sums(g, x, mu, r, w, rows, 1, n, true);
    grad_input = at::empty_like(x);
    launch::launch_input_grad(g, x, mu, r, w, sums, grad_input, rows, n, static_cast<double>(n), true, false);
  }
  if ((output_mask[1] && present(weight)) || (output_mask[2] && present(bias))) {
    const auto [sum_g_xhat, sum_g] = launch::launch_param_grads(g, x, mu, r, rows, n);
    if (output_mask[1] && present(weight)) grad_weight = sum_g_xhat.view(weight->sizes()).to(weight->scalar_type());
    if (output_mask[2] && present(bias)) grad_bias = sum_g.view(bias->sizes()).to(bias->scalar_type());
  }
  return {grad_input, grad_weight, grad_bias};
}

// rms_norm as foo's layer_norm kernel without the mean (one launch). torch.rms_norm takes its
// composite for complex input, channels_last input and weights of another dtype, so only real
// floating dtypes come here. rstd is float32 (float64 for float64 input), shaped like layer_norm's.
std::tuple<Tensor, Tensor> rms_norm(const Tensor& input, c10::IntArrayRef normalized_shape,
                                    const OptionalTensor& weight, std::optional<double> eps) {
  TORCH_CHECK(at::isFloatingType(input.scalar_type()), "foo-cl: _fused_rms_norm supports floating-point input, got ",
              input.scalar_type(), " (torch.rms_norm takes its composite for complex input)");
  const c10::DeviceGuard guard(input.device());
  at::native::_check_rms_norm_inputs_symint(input, c10::fromIntArrayRefSlow(normalized_shape),
                                             weight.value_or(Tensor()));
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous();
  const int64_t rows = leading_rows(input, normalized_shape);
  // NOTE: the default eps is the machine epsilon of the compute dtype, as PyTorch's composite.
  const double e = eps ? *eps
                       : (acc == c10::kDouble ? std::numeric_limits<double>::epsilon()
                                              : static_cast<double>(std::numeric_limits<float>::epsilon()));
  const Tensor rstd = at::empty({rows}, x.options().dtype(acc));
  Tensor out = at::empty_like(x);
  launch::launch_layer_norm(x, parameter(weight, acc), Tensor(), e, out, Tensor(), rstd);
  return {out, rstd.view(stat_shape(input, normalized_shape))};
}

// grad_input = rstd * (gw - xhat * mean(gw * xhat)), gw = grad * weight, xhat = input * rstd,
// composed of foo's kernels; grad_weight = the sum of grad * xhat over the leading dims, in one pass.
std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& input,
                                             c10::IntArrayRef normalized_shape, const Tensor& rstd,
                                             const OptionalTensor& weight, std::array<bool, 2> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  Tensor grad_input, grad_weight;
  if (output_mask[0]) {
    std::vector<int64_t> normalized_dims(normalized_shape.size());
    std::iota(normalized_dims.begin(), normalized_dims.end(), input.dim() - static_cast<int64_t>(normalized_shape.size()));
    const Tensor g = grad_out.to(acc), xhat = input.to(acc) * rstd;
    const Tensor gw = present(weight) ? g * weight->to(acc) : g;
    grad_input = (rstd * (gw - xhat * (gw * xhat).mean(normalized_dims, /*keepdim=*/true))).to(input.scalar_type());
  }
  if (output_mask[1] && present(weight)) {
    const int64_t n = numel_of(normalized_shape);
    const Tensor sum_g_xhat = launch::launch_param_grads(grad_out.contiguous(), input.contiguous(), Tensor(),
                                                         rstd.to(acc).contiguous(), n == 0 ? 0 : input.numel() / n, n)
                                  .first;
    grad_weight = sum_g_xhat.view(weight->sizes()).to(weight->scalar_type());
  }
  return {grad_input, grad_weight};
}

// group_norm as CPU computes it: each group's mean and rstd (one launch), then per image and channel
// scale = rstd * weight and shift = bias - scale * mean, and out = x * scale + shift in one pass.
std::tuple<Tensor, Tensor, Tensor> group_norm(const Tensor& input, const OptionalTensor& weight,
                                              const OptionalTensor& bias, int64_t n, int64_t c, int64_t hw,
                                              int64_t groups, double eps) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const Tensor x = input.contiguous();
  auto [mean, var] = moments(x, n * groups, 1, c / groups * hw);
  mean = mean.view({n, groups, 1});
  const Tensor rstd = (var.view({n, groups, 1}) + eps).rsqrt_();
  // [n, groups, channels per group]
  Tensor scale = rstd.expand({n, groups, c / groups});
  if (present(weight)) scale = scale * weight->to(acc).view({1, groups, c / groups});
  Tensor shift = -scale * mean;
  if (present(bias)) shift = shift + bias->to(acc).view({1, groups, c / groups});
  const Tensor out = at::addcmul(shift.reshape({n, c, 1}), x.view({n, c, hw}), scale.reshape({n, c, 1}));
  return {out.view(input.sizes()).to(input.scalar_type()), mean.view({n, groups}), rstd.view({n, groups})};
}

// group_norm's gradients as CPU computes them, from per image and channel sums ds = sum(dy * x) and
// db = sum(dy) over positions: per group (D channels of hw positions, s = 1 / (D * hw), sums over
// the group's channels weighted by the weight) c2 = (sum(db) * mean - sum(ds)) * rstd^3 * s and
// c3 = -c2 * mean - sum(db) * rstd * s, then dx = rstd * weight * dy + c2 * x + c3 in one pass;
// dweight = sum over images of (ds - db * mean) * rstd, dbias = sum over images of db.
std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                                       const Tensor& rstd, const OptionalTensor& weight, int64_t n,
                                                       int64_t c, int64_t hw, int64_t groups,
                                                       std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const c10::ScalarType acc = launch::float_accumulate_type(input.scalar_type());
  const int64_t d = c / groups;
  const Tensor x = input.contiguous().view({n, c, hw}), g = grad_out.contiguous().view({n, c, hw});
  const Tensor mu = mean.to(acc).view({n, groups, 1}), r = rstd.to(acc).view({n, groups, 1});
  // [n, groups, d]
  const Tensor ds = at::mul(g, x).sum(2, false, acc).view({n, groups, d});
  const Tensor db = g.sum(2, false, acc).view({n, groups, d});
  const Tensor w = present(weight) ? weight->to(acc).view({1, groups, d}) : Tensor();
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const double per = 1.0 / static_cast<double>(d * hw);
    const Tensor ds_g = (w.defined() ? ds * w : ds).sum(2, true), db_g = (w.defined() ? db * w : db).sum(2, true);
    const Tensor c2 = (db_g * mu - ds_g) * r * r * r * per;
    const Tensor c3 = -c2 * mu - db_g * r * per;
    const Tensor c1 = w.defined() ? r * w : r.expand({n, groups, d});
    const Tensor term = at::addcmul(c3.expand({n, groups, d}).reshape({n, c, 1}), x, c2.expand({n, groups, d}).reshape({n, c, 1}));
    grad_input = at::addcmul(term, g, c1.reshape({n, c, 1})).view(input.sizes()).to(input.scalar_type());
  }
  const c10::ScalarType param = present(weight) ? weight->scalar_type() : input.scalar_type();
  if (output_mask[1]) grad_weight = ((ds - db * mu) * r).sum(0).view({c}).to(param);
  if (output_mask[2]) grad_bias = db.sum(0).view({c}).to(param);
  return {grad_input, grad_weight, grad_bias};
}

// weight_norm's fused pair, which torch.nn.utils.weight_norm and parametrizations.weight_norm reach
// for dim 0 or the last (the other dims' norm of v; its composite path takes the rest): w = v * g / norm,
// norm over every dim but `dim` in the accumulate type (float for half and bfloat16, as on CUDA).
int64_t weight_norm_dim(const Tensor& v, int64_t dim) {
  TORCH_CHECK(dim == 0 || dim == v.dim() - 1, "fused kernels can only be applied for first or last dim");
  return dim;
}

// t summed over every dim but `dim`, which stay as 1s; t itself when it has no other dim (a 1-D weight,
// whose norm is then each element's magnitude).
Tensor sum_except(const Tensor& t, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d != dim) dims.push_back(d);
  }
  return dims.empty() ? t : t.sum(dims, /*keepdim=*/true);
}

std::tuple<Tensor, Tensor> weight_norm(const Tensor& v, const Tensor& g, int64_t dim) {
  const c10::DeviceGuard guard(v.device());
  const c10::ScalarType acc = launch::float_accumulate_type(g.scalar_type());
  const Tensor vv = v.to(acc);
  const Tensor norm = sum_except(vv * vv, weight_norm_dim(v, dim)).sqrt_();
  return {(vv * (g.to(acc) / norm)).to(v.scalar_type()).contiguous(), norm};
}

std::tuple<Tensor, Tensor> weight_norm_backward(const Tensor& grad_w, const Tensor& v, const Tensor& g,
                                                const Tensor& norm, int64_t dim) {
  const c10::DeviceGuard guard(v.device());
  const c10::ScalarType acc = norm.scalar_type();
  const Tensor gw = grad_w.to(acc), vv = v.to(acc);
  const Tensor dot = sum_except(gw * vv, weight_norm_dim(v, dim));
  const Tensor grad_v = (g.to(acc) / norm) * (gw - vv * (dot / (norm * norm)));
  return {grad_v.to(v.scalar_type()), (dot / norm).to(g.scalar_type())};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("native_batch_norm", batch_norm);
  m.impl("native_batch_norm_backward", batch_norm_backward);
  m.impl("_native_batch_norm_legit", batch_norm_legit);
  m.impl("_native_batch_norm_legit.no_stats", batch_norm_legit_no_stats);
  m.impl("_batch_norm_with_update", batch_norm_with_update);
  m.impl("batch_norm_backward", batch_norm_backward_with_update);
  m.impl("batch_norm_stats", batch_norm_stats);
  m.impl("batch_norm_gather_stats_with_counts", batch_norm_gather_stats_with_counts);
  m.impl("batch_norm_elemt", batch_norm_elemt);
  m.impl("batch_norm_backward_reduce", batch_norm_backward_reduce);
  m.impl("batch_norm_backward_elemt", batch_norm_backward_elemt);
  m.impl("native_layer_norm", layer_norm);
  m.impl("native_layer_norm_backward", layer_norm_backward);
  m.impl("_fused_rms_norm", rms_norm);
  m.impl("_fused_rms_norm_backward", rms_norm_backward);
  m.impl("native_group_norm", group_norm);
  m.impl("native_group_norm_backward", group_norm_backward);
  m.impl("_weight_norm_interface", weight_norm);
  m.impl("_weight_norm_interface_backward", weight_norm_backward);
}

}  // namespace foo_cl::aten
