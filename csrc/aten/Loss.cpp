// Losses: nll_loss and nll_loss2d (and so cross_entropy) forward and backward over [n, classes] inputs
// (launch/Loss, PyTorch's structured meta functions for checks and shapes), and the elementwise
// losses (mse, smooth_l1, huber, binary_cross_entropy) composed of foo kernels.
#include "aten/Out.h"
#include "aten/Structured.h"
#include "launch/Dtypes.h"
#include "launch/Loss.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/nll_loss_backward_meta.h>
#include <ATen/ops/nll_loss_forward_meta.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/div.h>
#include <ATen/ops/log.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/nll_loss_backward.h>
#include <ATen/ops/nll_loss_forward.h>
#include <ATen/ops/rsub.h>
#include <ATen/ops/sign.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// The kernels read int64 targets and weights in the input's dtype; CPU accepts int64 and uint8 targets.
Tensor long_targets(const Tensor& target) {
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kByte,
              "expected scalar type Long but found ", target.scalar_type());
  return target.to(at::kLong).contiguous();
}

Tensor defined_weight(const std::optional<Tensor>& weight, const Tensor& self) {
  if (!weight || !weight->defined()) return Tensor();
  TORCH_CHECK(weight->scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
              " but found ", weight->scalar_type());
  return weight->contiguous();
}

std::tuple<Tensor&, Tensor&> nll_loss_forward_out(const Tensor& self, const Tensor& target,
                                                  const std::optional<Tensor>& weight_opt, int64_t reduction,
                                                  int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  detail::GivenOutputOp<at::meta::structured_nll_loss_forward, false> op(output, total_weight);
  op.meta(self, target, detail::meta_arg(weight_opt), reduction, ignore_index);
  const c10::DeviceGuard guard(self.device());
  const int64_t n = self.dim() == 1 ? 1 : self.size(0);
  const Tensor targets = long_targets(target);
  const Tensor input = self.contiguous(), weight = defined_weight(weight_opt, self);
  const c10::ScalarType acc = launch::float_accumulate_type(self.scalar_type());
  const Tensor losses = at::empty({n}, self.options().dtype(acc)), weights = at::empty({n}, self.options().dtype(acc));
  launch::launch_nll_loss(input, targets, weight, ignore_index, losses, weights);
  const Tensor& out = op.maybe_get_output(0);
  const Tensor& total = op.maybe_get_output(1);
  total.copy_(weights.sum());
  if (reduction == at::Reduction::None && self.dim() == 2) {
    out.copy_(losses);
  } else if (reduction == at::Reduction::Mean) {
    out.copy_(losses.sum() / weights.sum());
  } else {
    out.copy_(losses.sum());
  }
  op.finish();
  return {output, total_weight};
}

// What nll_loss_backward's grad_output holds: a value per row only for reduction none over [n, classes]
// inputs (with reduction none, a [classes] input's loss, and so its gradient, is a scalar).
launch::NllLossGrad grad_kind(int64_t reduction, const Tensor& self) {
  if (reduction == at::Reduction::None && self.dim() == 2) return launch::NllLossGrad::kPerRow;
  return reduction == at::Reduction::Mean ? launch::NllLossGrad::kMean : launch::NllLossGrad::kSum;
}

Tensor& nll_loss_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight_opt, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight, Tensor& grad_input) {
  detail::GivenOutputOp<at::meta::structured_nll_loss_backward, false> op(grad_input);
  op.meta(grad_output, self, target, detail::meta_arg(weight_opt), reduction, ignore_index, total_weight);
  const c10::DeviceGuard guard(self.device());
  const int64_t n = self.dim() == 1 ? 1 : self.size(0);
  if (n > 0) {
    const Tensor targets = long_targets(target), weight = defined_weight(weight_opt, self);
    const Tensor grad = grad_output.contiguous(), total = total_weight.to(self.scalar_type());
    launch::launch_nll_loss_backward(grad, targets, weight, total, grad_kind(reduction, self), ignore_index,
                                     op.maybe_get_output(0));
  }
  op.finish();
  return grad_input;
}

// nll_loss2d: the spatial positions of [n, classes, h, w] become rows of the 1-d nll_loss.
Tensor spatial_rows(const Tensor& self) {
  return self.movedim(1, -1).reshape({-1, self.size(1)});
}

void check_spatial(const Tensor& self, const Tensor& target) {
  TORCH_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
              target.dim());
  TORCH_CHECK(self.dim() == 4, "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
              self.dim());
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2),
              "input and target batch or spatial sizes don't match: target ", target.sizes(), ", input ", self.sizes());
}

std::tuple<Tensor&, Tensor&> nll_loss2d_forward_out(const Tensor& self, const Tensor& target,
                                                    const std::optional<Tensor>& weight, int64_t reduction,
                                                    int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  check_spatial(self, target);
  const auto [out, total] = at::nll_loss_forward(spatial_rows(self), target.reshape(-1), weight, reduction, ignore_index);
  const Tensor shaped = reduction == at::Reduction::None ? out.view(target.sizes()) : out;
  at::native::resize_output(output, shaped.sizes());
  output.copy_(shaped);
  at::native::resize_output(total_weight, total.sizes());
  total_weight.copy_(total);
  return {output, total_weight};
}

std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  Tensor output = at::empty({0}, self.options()), total_weight = at::empty({0}, self.options());
  nll_loss2d_forward_out(self, target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

Tensor& nll_loss2d_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight, Tensor& grad_input) {
  check_spatial(self, target);
  const Tensor grad = reduction == at::Reduction::None ? grad_output.reshape(-1) : grad_output;
  const Tensor rows = at::nll_loss_backward(grad, spatial_rows(self), target.reshape(-1), weight, reduction,
                                            ignore_index, total_weight);
  const Tensor shaped = rows.view({self.size(0), self.size(2), self.size(3), self.size(1)}).movedim(-1, 1);
  at::native::resize_output(grad_input, self.sizes());
  return grad_input.copy_(shaped);
}

Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                           const Tensor& total_weight) {
  Tensor grad_input = at::empty({0}, self.options());
  return nll_loss2d_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
}

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == at::Reduction::Mean) return loss.mean();
  if (reduction == at::Reduction::Sum) return loss.sum();
  return loss;
}

// d(reduced loss)/d(loss element): grad_output itself for none and sum, divided by n for mean.
Tensor reduced_grad(const Tensor& grad_output, const Tensor& input, int64_t reduction) {
  return reduction == at::Reduction::Mean ? grad_output / static_cast<double>(input.numel()) : grad_output;
}

Tensor mse(const Tensor& input, const Tensor& target, int64_t reduction) {
  const Tensor diff = input - target;
  return reduce(diff * diff, reduction);
}

Tensor& mse_out(const Tensor& input, const Tensor& target, int64_t reduction, Tensor& out) {
  return write_out(mse(input, target, reduction), out);
}

Tensor mse_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target, int64_t reduction) {
  return (input - target).mul_(2).mul_(reduced_grad(grad_output, input, reduction));
}

Tensor& mse_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                              int64_t reduction, Tensor& grad_input) {
  return write_out(mse_backward(grad_output, input, target, reduction), grad_input);
}

// beta == 0 is the l1 loss, as CPU.
Tensor smooth_l1(const Tensor& input, const Tensor& target, int64_t reduction, double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  const Tensor diff = (input - target).abs();
  if (beta == 0) return reduce(diff, reduction);
  return reduce(at::where(diff.lt(beta), diff * diff * (0.5 / beta), diff - 0.5 * beta), reduction);
}

Tensor& smooth_l1_out(const Tensor& input, const Tensor& target, int64_t reduction, double beta, Tensor& out) {
  return write_out(smooth_l1(input, target, reduction, beta), out);
}

Tensor& smooth_l1_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                    int64_t reduction, double beta, Tensor& grad_input) {
  // As CPU: -1 from -beta down, 1 from beta up, diff / beta between (and at NaN); at beta == 0, -1 at 0.
  const Tensor diff = input - target;
  const Tensor slope = at::where(diff.le(-beta), -1, at::where(diff.ge(beta), 1, diff / beta));
  return write_out(slope * reduced_grad(grad_output, input, reduction), grad_input);
}

Tensor smooth_l1_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                               int64_t reduction, double beta) {
  Tensor grad_input = at::empty({0}, input.options());
  return smooth_l1_backward_out(grad_output, input, target, reduction, beta, grad_input);
}

Tensor huber(const Tensor& input, const Tensor& target, int64_t reduction, double delta) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  const Tensor diff = (input - target).abs();
  return reduce(at::where(diff.lt(delta), diff * diff * 0.5, (diff - 0.5 * delta) * delta), reduction);
}

Tensor& huber_out(const Tensor& input, const Tensor& target, int64_t reduction, double delta, Tensor& out) {
  return write_out(huber(input, target, reduction, delta), out);
}

Tensor& huber_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                int64_t reduction, double delta, Tensor& grad_input) {
  const Tensor diff = input - target;
  return write_out(diff.clamp(-delta, delta) * reduced_grad(grad_output, input, reduction), grad_input);
}

// As CPU: inputs must lie in [0, 1] (one wait for the device) and each log is clamped at -100.
Tensor bce(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  if (input.numel() > 0) {
    const auto [low, high] = at::aminmax(input);
    TORCH_CHECK(low.item<double>() >= 0 && high.item<double>() <= 1,
                "all elements of input should be between 0 and 1");
  }
  Tensor loss = -(target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100));
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce(loss, reduction);
}

Tensor& bce_out(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, Tensor& out) {
  return write_out(bce(input, target, weight, reduction), out);
}

Tensor bce_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction) {
  Tensor grad = (input - target) / ((1 - input) * input).clamp_min(1e-12) * reduced_grad(grad_output, input, reduction);
  if (weight && weight->defined()) grad = grad * *weight;
  return grad;
}

Tensor& bce_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction,
                                          Tensor& grad_input) {
  return write_out(bce_backward(grad_output, input, target, weight, reduction), grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mse_loss", mse);
  m.impl("mse_loss.out", mse_out);
  m.impl("mse_loss_backward", mse_backward);
  m.impl("mse_loss_backward.grad_input", mse_backward_out);
  m.impl("smooth_l1_loss", smooth_l1);
  m.impl("smooth_l1_loss.out", smooth_l1_out);
  m.impl("smooth_l1_loss_backward", smooth_l1_backward);
  m.impl("smooth_l1_loss_backward.grad_input", smooth_l1_backward_out);
  m.impl("huber_loss", huber);
  m.impl("huber_loss.out", huber_out);
  m.impl("huber_loss_backward.out", huber_backward_out);
  m.impl("binary_cross_entropy", bce);
  m.impl("binary_cross_entropy.out", bce_out);
  m.impl("binary_cross_entropy_backward", bce_backward);
  m.impl("binary_cross_entropy_backward.grad_input", bce_backward_out);
  m.impl("nll_loss_forward.output", nll_loss_forward_out);
  m.impl("nll_loss2d_forward", nll_loss2d_forward);
  m.impl("nll_loss2d_forward.output", nll_loss2d_forward_out);
  m.impl("nll_loss2d_backward", nll_loss2d_backward);
  m.impl("nll_loss2d_backward.grad_input", nll_loss2d_backward_out);
  m.impl("nll_loss_backward.grad_input", nll_loss_backward_out);
}

}  // namespace foo_cl::aten
