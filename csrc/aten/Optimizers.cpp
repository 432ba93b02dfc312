// The fused optimizer steps of torch.optim (fused=True): Adam, AdamW and SGD, one kernel per
// parameter tensor that reads and writes the parameter, its gradient and its state once
// (kernels_cl/optim/). NOTE: OpenCL 1.2 kernels cannot follow pointers into other buffers, so the
// tensors of a group cannot share one launch as CUDA's multi-tensor kernels do.
#include "launch/Launch.h"

#include <ATen/ops/empty_like.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>
#include <functional>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;

c10::ScalarType accumulate(const Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

// Runs `step` on contiguous versions of `tensors`, copying results back into non-contiguous ones.
void on_contiguous(std::vector<Tensor> tensors, const std::function<void(const std::vector<Tensor>&)>& step) {
  std::vector<Tensor> dense;
  for (const Tensor& t : tensors) dense.push_back(!t.defined() || t.is_contiguous() ? t : t.contiguous());
  step(dense);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].defined() && !dense[i].is_same(tensors[i])) tensors[i].copy_(dense[i]);
  }
}

// The options every optimizer kernel takes: dtypes, index width, GradScaler inputs.
std::string step_options(const Tensor& param, const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  std::string options = launch::dtype_option("DT", param.scalar_type()) +
                        launch::dtype_option("ACC", accumulate(param)) + launch::index_option(param.numel());
  if (grad_scale && grad_scale->defined()) options += "-DGRAD_SCALE ";
  if (found_inf && found_inf->defined()) options += "-DFOUND_INF ";
  return options;
}

const void* or_unused(const OptionalTensor& t, const Tensor& any) {
  return t && t->defined() ? t->const_data_ptr() : any.const_data_ptr();
}

void adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
          at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
          double weight_decay, double eps, bool amsgrad, bool maximize, const OptionalTensor& grad_scale,
          const OptionalTensor& found_inf, bool decoupled) {
  TORCH_CHECK(grads.size() == params.size() && exp_avgs.size() == params.size() &&
                  exp_avg_sqs.size() == params.size() && steps.size() == params.size() &&
                  (!amsgrad || max_exp_avg_sqs.size() == params.size()),
              "_fused_adam_: every tensor list must have one tensor per parameter");
  for (size_t k = 0; k < params.size(); ++k) {
    const Tensor& p = params[k];
    if (p.numel() == 0) continue;
    const c10::DeviceGuard guard(p.device());
    const c10::ScalarType acc = accumulate(p);
    std::string options =
        step_options(p, grad_scale, found_inf) + launch::dtype_option("STEP", steps[k].scalar_type());
    if (p.scalar_type() == acc) options += "-DVEC ";
    if (decoupled) options += "-DADAMW ";
    if (amsgrad) options += "-DAMSGRAD ";
    if (maximize) options += "-DMAXIMIZE ";
    on_contiguous({p, grads[k], exp_avgs[k], exp_avg_sqs[k], amsgrad ? max_exp_avg_sqs[k] : Tensor()},
                  [&](const std::vector<Tensor>& t) {
                    launch::KernelCall(p.device().index(), "optim/adam", "adam_step", options)
                        .buffer(t[0].data_ptr())
                        .buffer(t[1].data_ptr())
                        .buffer(t[2].data_ptr())
                        .buffer(t[3].data_ptr())
                        .buffer(amsgrad ? t[4].data_ptr() : t[3].data_ptr())
                        .buffer(steps[k].const_data_ptr())
                        .buffer(or_unused(grad_scale, p))
                        .buffer(or_unused(found_inf, p))
                        .scalar(lr, acc)
                        .scalar(beta1, acc)
                        .scalar(beta2, acc)
                        .scalar(std::log(beta1), acc)
                        .scalar(std::log(beta2), acc)
                        .scalar(weight_decay, acc)
                        .scalar(eps, acc)
                        .count(p.numel())
                        .launch(p.numel());
                  });
  }
}

void fused_adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize, const OptionalTensor& grad_scale,
                const OptionalTensor& found_inf) {
  adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, weight_decay, eps, amsgrad,
       maximize, grad_scale, found_inf, false);
}

void fused_adamw(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                 at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
                 double weight_decay, double eps, bool amsgrad, bool maximize, const OptionalTensor& grad_scale,
                 const OptionalTensor& found_inf) {
  adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, weight_decay, eps, amsgrad,
       maximize, grad_scale, found_inf, true);
}

// The tensor-lr overloads read lr on the host (one wait for the device when lr lives there).
void fused_adam_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                          at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList steps,
                          const Tensor& lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad,
                          bool maximize, const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr.item<double>(), beta1, beta2,
             weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void fused_adamw_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                           at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList steps,
                           const Tensor& lr, double beta1, double beta2, double weight_decay, double eps,
                           bool amsgrad, bool maximize, const OptionalTensor& grad_scale,
                           const OptionalTensor& found_inf) {
  fused_adamw(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr.item<double>(), beta1, beta2,
              weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void fused_sgd(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers, double weight_decay,
               double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
               const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  const bool with_momentum = momentum != 0;
  TORCH_CHECK(grads.size() == params.size() && (!with_momentum || momentum_buffers.size() == params.size()),
              "_fused_sgd_: every tensor list must have one tensor per parameter");
  for (size_t k = 0; k < params.size(); ++k) {
    const Tensor& p = params[k];
    if (p.numel() == 0) continue;
    const c10::DeviceGuard guard(p.device());
    const c10::ScalarType acc = accumulate(p);
    std::string options = step_options(p, grad_scale, found_inf);
    if (with_momentum) options += "-DMOMENTUM ";
    if (with_momentum && is_first_step) options += "-DFIRST_STEP ";
    if (nesterov) options += "-DNESTEROV ";
    if (maximize) options += "-DMAXIMIZE ";
    on_contiguous({p, grads[k], with_momentum ? momentum_buffers[k] : Tensor()}, [&](const std::vector<Tensor>& t) {
      launch::KernelCall(p.device().index(), "optim/sgd", "sgd_step", options)
          .buffer(t[0].data_ptr())
          .buffer(t[1].data_ptr())
          .buffer(with_momentum ? t[2].data_ptr() : t[1].data_ptr())
          .buffer(or_unused(grad_scale, p))
          .buffer(or_unused(found_inf, p))
          .scalar(lr, acc)
          .scalar(weight_decay, acc)
          .scalar(momentum, acc)
          .scalar(dampening, acc)
          .count(p.numel())
          .launch(p.numel());
    });
  }
}

void fused_sgd_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                         double weight_decay, double momentum, const Tensor& lr, double dampening, bool nesterov,
                         bool maximize, bool is_first_step, const OptionalTensor& grad_scale,
                         const OptionalTensor& found_inf) {
  fused_sgd(params, grads, momentum_buffers, weight_decay, momentum, lr.item<double>(), dampening, nesterov, maximize,
            is_first_step, grad_scale, found_inf);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fused_adam_", fused_adam);
  m.impl("_fused_adam_.tensor_lr", fused_adam_tensor_lr);
  m.impl("_fused_adamw_", fused_adamw);
  m.impl("_fused_adamw_.tensor_lr", fused_adamw_tensor_lr);
  m.impl("_fused_sgd_", fused_sgd);
  m.impl("_fused_sgd_.tensor_lr", fused_sgd_tensor_lr);
}

}  // namespace foo_cl::aten
