// The fused optimizer steps of torch.optim (fused=True): Adam, AdamW and SGD over lists of
// parameters and their state, one launch/Optim step per parameter tensor.
#include "launch/Optim.h"

#include <torch/library.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;

void adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
          at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
          double weight_decay, double eps, bool amsgrad, bool maximize, const OptionalTensor& grad_scale,
          const OptionalTensor& found_inf, bool decoupled) {
  TORCH_CHECK(grads.size() == params.size() && exp_avgs.size() == params.size() &&
                  exp_avg_sqs.size() == params.size() && steps.size() == params.size() &&
                  (!amsgrad || max_exp_avg_sqs.size() == params.size()),
              "_fused_adam_: every tensor list must have one tensor per parameter");
  const launch::AdamHyperparameters hyper{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled};
  for (size_t k = 0; k < params.size(); ++k) {
    launch::launch_adam_step(params[k], grads[k], exp_avgs[k], exp_avg_sqs[k],
                             amsgrad ? max_exp_avg_sqs[k] : Tensor(), steps[k], hyper, grad_scale, found_inf);
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
  const launch::SgdHyperparameters hyper{lr, weight_decay, momentum, dampening, nesterov, maximize, is_first_step};
  for (size_t k = 0; k < params.size(); ++k) {
    launch::launch_sgd_step(params[k], grads[k], with_momentum ? momentum_buffers[k] : Tensor(), hyper, grad_scale,
                            found_inf);
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
