// The launchers of batch, layer and group normalisation (kernels_cl/norm/). Tensors are contiguous
// and seen as blocks of `inner` elements, block b = j * groups + g belonging to group g (`outer`
// blocks a group): layer_norm has one block (row) a group, batch_norm one block per image and
// channel. Statistics (mean, rstd, sums) are float32, or float64 for float64 input; affine
// parameters are per element of a block (`per_element`, layer_norm) or per group (batch_norm),
// and may be undefined.
#pragma once

#include <ATen/core/Tensor.h>

#include <utility>

namespace foo_cl::launch {

// Each group's mean and biased variance.
void launch_moments(const at::Tensor& input, int64_t groups, int64_t outer, int64_t inner, const at::Tensor& mean,
                    const at::Tensor& var);

// layer_norm's forward in one launch: each row's (of rstd.numel() rows) mean and rstd =
// 1 / sqrt(var + eps), and out = (input - mean) * rstd * weight + bias. An undefined `mean` makes
// it rms_norm's: rstd = 1 / sqrt(mean(input^2) + eps), out = input * rstd * weight (no bias).
void launch_layer_norm(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias, double eps,
                       const at::Tensor& out, const at::Tensor& mean, const at::Tensor& rstd);

// out = (input - mean) * rstd * weight + bias.
void launch_normalize(const at::Tensor& input, const at::Tensor& mean, const at::Tensor& rstd,
                      const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& out, int64_t groups,
                      int64_t inner, bool per_element);

// [groups, 2]: each group's sum(gw) and sum(gw * xhat), gw = grad * weight, xhat = (input - mean) * rstd.
at::Tensor launch_group_sums(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& mean,
                             const at::Tensor& rstd, const at::Tensor& weight, int64_t groups, int64_t outer,
                             int64_t inner, bool per_element);

// grad_input = rstd * (gw - (sums[g][0] + xhat * sums[g][1]) / count), or rstd * gw when `eval`.
void launch_input_grad(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& mean,
                       const at::Tensor& rstd, const at::Tensor& weight, const at::Tensor& sums,
                       const at::Tensor& grad_input, int64_t groups, int64_t inner, double count, bool per_element,
                       bool eval);

// layer_norm's parameter gradients over `rows` rows of `n` elements: {sum over rows of grad * xhat,
// sum over rows of grad}, each [n] in the statistics' dtype (rms_norm's, mean undefined: xhat =
// input * rstd; its second is then unused).
std::pair<at::Tensor, at::Tensor> launch_param_grads(const at::Tensor& grad, const at::Tensor& input,
                                                     const at::Tensor& mean, const at::Tensor& rstd, int64_t rows,
                                                     int64_t n);

}  // namespace foo_cl::launch
