// Optimizer-step launches: one kernel per parameter tensor, run on contiguous copies of
// non-contiguous tensors that are copied back after the step.
#include "launch/Optim.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace foo_cl::launch {
namespace {

// Runs `step` on contiguous versions of `tensors`, copying results back into non-contiguous ones.
void on_contiguous(std::vector<at::Tensor> tensors,
                   const std::function<void(const std::vector<at::Tensor>&)>& step) {
  std::vector<at::Tensor> dense;
  for (const at::Tensor& t : tensors) dense.push_back(!t.defined() || t.is_contiguous() ? t : t.contiguous());
  step(dense);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].defined() && !dense[i].is_same(tensors[i])) tensors[i].copy_(dense[i]);
  }
}

// The options every optimizer kernel takes: dtypes, index width, GradScaler inputs.
std::string step_options(const at::Tensor& param, const std::optional<at::Tensor>& grad_scale,
                         const std::optional<at::Tensor>& found_inf) {
  std::string options = dtype_option("DT", param.scalar_type()) +
                        dtype_option("ACC", float_accumulate_type(param.scalar_type())) +
                        index_option(param.numel());
  if (grad_scale && grad_scale->defined()) options += "-DGRAD_SCALE ";
  if (found_inf && found_inf->defined()) options += "-DFOUND_INF ";
  return options;
}

}  // namespace

void launch_adam_step(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& exp_avg,
                      const at::Tensor& exp_avg_sq, const at::Tensor& max_exp_avg_sq, const at::Tensor& step,
                      const AdamHyperparameters& hyper, const std::optional<at::Tensor>& grad_scale,
                      const std::optional<at::Tensor>& found_inf) {
  if (param.numel() == 0) return;
  const c10::DeviceGuard guard(param.device());
  const c10::ScalarType acc = float_accumulate_type(param.scalar_type());
  std::string options = step_options(param, grad_scale, found_inf) + dtype_option("STEP", step.scalar_type());
  if (param.scalar_type() == acc) options += "-DVEC ";
  if (hyper.decoupled) options += "-DADAMW ";
  if (hyper.amsgrad) options += "-DAMSGRAD ";
  if (hyper.maximize) options += "-DMAXIMIZE ";
  on_contiguous({param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq}, [&](const std::vector<at::Tensor>& t) {
    KernelCall(param.device().index(), "optim/adam", "adam_step", options)
        .buffer(t[0].data_ptr())
        .buffer(t[1].data_ptr())
        .buffer(t[2].data_ptr())
        .buffer(t[3].data_ptr())
        .buffer(hyper.amsgrad ? t[4].data_ptr() : t[3].data_ptr())
        .buffer(step.const_data_ptr())
        .buffer(or_unused(grad_scale, param))
        .buffer(or_unused(found_inf, param))
        .scalar(hyper.lr, acc)
        .scalar(hyper.beta1, acc)
        .scalar(hyper.beta2, acc)
        .scalar(std::log(hyper.beta1), acc)
        .scalar(std::log(hyper.beta2), acc)
        .scalar(hyper.weight_decay, acc)
        .scalar(hyper.eps, acc)
        .count(param.numel())
        .launch(param.numel());
  });
}

void launch_sgd_step(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& momentum_buffer,
                     const SgdHyperparameters& hyper, const std::optional<at::Tensor>& grad_scale,
                     const std::optional<at::Tensor>& found_inf) {
  if (param.numel() == 0) return;
  const c10::DeviceGuard guard(param.device());
  const c10::ScalarType acc = float_accumulate_type(param.scalar_type());
  const bool with_momentum = hyper.momentum != 0;
  std::string options = step_options(param, grad_scale, found_inf);
  if (with_momentum) options += "-DMOMENTUM ";
  if (with_momentum && hyper.is_first_step) options += "-DFIRST_STEP ";
  if (hyper.nesterov) options += "-DNESTEROV ";
  if (hyper.maximize) options += "-DMAXIMIZE ";
  on_contiguous({param, grad, momentum_buffer}, [&](const std::vector<at::Tensor>& t) {
    KernelCall(param.device().index(), "optim/sgd", "sgd_step", options)
        .buffer(t[0].data_ptr())
        .buffer(t[1].data_ptr())
        .buffer(with_momentum ? t[2].data_ptr() : t[1].data_ptr())
        .buffer(or_unused(grad_scale, param))
        .buffer(or_unused(found_inf, param))
        .scalar(hyper.lr, acc)
        .scalar(hyper.weight_decay, acc)
        .scalar(hyper.momentum, acc)
        .scalar(hyper.dampening, acc)
        .count(param.numel())
        .launch(param.numel());
  });
}

}  // namespace foo_cl::launch
