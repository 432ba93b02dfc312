// The fused optimizer-step launchers (kernels_cl/optim/): one kernel per parameter tensor that reads
// and writes the parameter, its gradient and its state once, in float_accumulate_type of the
// parameter's dtype. Tensors may have any layout. As in PyTorch's fused kernels, an optional
// grad_scale divides the gradient (written back unscaled) and a nonzero found_inf skips the step.
// NOTE: OpenCL 1.2 kernels cannot follow pointers into other buffers, so the tensors of a group
// cannot share one launch as CUDA's multi-tensor kernels do.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace foo_cl::launch {

// Adam's hyperparameters; `decoupled` is AdamW's weight decay.
struct AdamHyperparameters {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;
};

struct SgdHyperparameters {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, is_first_step;
};

// One Adam step of `param`, updating exp_avg, exp_avg_sq and (with amsgrad; else undefined)
// max_exp_avg_sq; `step` holds the step number.
void launch_adam_step(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& exp_avg,
                      const at::Tensor& exp_avg_sq, const at::Tensor& max_exp_avg_sq, const at::Tensor& step,
                      const AdamHyperparameters& hyper, const std::optional<at::Tensor>& grad_scale,
                      const std::optional<at::Tensor>& found_inf);

// One SGD step of `param`, updating momentum_buffer (undefined when momentum is 0).
void launch_sgd_step(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& momentum_buffer,
                     const SgdHyperparameters& hyper, const std::optional<at::Tensor>& grad_scale,
                     const std::optional<at::Tensor>& found_inf);

}  // namespace foo_cl::launch
