// The nll_loss launchers (kernels_cl/loss/) over log-probabilities [rows, classes] (or one row,
// [classes]), with int64 targets and an optional per-class weight in the input's dtype (undefined
// for none). Inputs are contiguous; per-row losses and weights are in float_accumulate_type of the
// input's dtype.
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

// What nll_loss_backward's grad_output holds: one gradient per row, or one for the sum of the rows'
// losses, or one for their weighted mean (which the kernel divides by total_weight).
enum class NllLossGrad { kPerRow, kSum, kMean };

// Each row's loss -w[t] * input[t] into `losses` and its weight w[t] into `weights` ([rows] each;
// 0 for targets equal to ignore_index).
void launch_nll_loss(const at::Tensor& input, const at::Tensor& targets, const at::Tensor& weight,
                     int64_t ignore_index, const at::Tensor& losses, const at::Tensor& weights);

// grad_input (the input's shape and dtype, any layout): -w[t] * grad at each row's target, 0
// elsewhere; grad_output and total_weight (one element) in the input's dtype.
void launch_nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& targets, const at::Tensor& weight,
                              const at::Tensor& total_weight, NllLossGrad kind, int64_t ignore_index,
                              const at::Tensor& grad_input);

}  // namespace foo_cl::launch
