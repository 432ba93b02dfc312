// nll_loss (and so cross_entropy) forward and backward over [n, classes] inputs
// (kernels_cl/loss/nll_loss.cl), with PyTorch's structured meta functions for checks and shapes.
#include "aten/Structured.h"
#include "launch/Launch.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/nll_loss_backward_meta.h>
#include <ATen/ops/nll_loss_forward_meta.h>
#include <ATen/ops/div.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// As CPU: a target outside [0, classes) that is not ignore_index raises (one wait for the device).
void check_targets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  if (target.numel() == 0) return;
  const auto [low, high] = at::aminmax(at::where(target.ne(ignore_index), target, 0));
  const int64_t lowest = low.item<int64_t>(), highest = high.item<int64_t>();
  TORCH_CHECK_INDEX(lowest >= 0, "Target ", lowest, " is out of bounds.");
  TORCH_CHECK_INDEX(highest < classes, "Target ", highest, " is out of bounds.");
}

std::string loss_options(const Tensor& self, int64_t n, const Tensor& weight) {
  std::string options = launch::dtype_option("DT", self.scalar_type()) +
                        launch::dtype_option("ACC", self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat) +
                        launch::index_option(n);
  if (weight.defined()) options += "-DWITH_WEIGHT ";
  return options;
}

Tensor defined_weight(const std::optional<Tensor>& weight) {
  return weight && weight->defined() ? weight->contiguous() : Tensor();
}

std::tuple<Tensor&, Tensor&> nll_loss_forward_out(const Tensor& self, const Tensor& target,
                                                  const std::optional<Tensor>& weight_opt, int64_t reduction,
                                                  int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  detail::GivenOutputOp<at::meta::structured_nll_loss_forward, false> op(output, total_weight);
  op.meta(self, target, detail::meta_arg(weight_opt), reduction, ignore_index);
  const c10::DeviceGuard guard(self.device());
  const int64_t classes = self.size(-1), n = self.dim() == 1 ? 1 : self.size(0);
  check_targets(target, classes, ignore_index);
  const Tensor input = self.contiguous(), targets = target.contiguous(), weight = defined_weight(weight_opt);
  const c10::ScalarType acc = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const Tensor losses = at::empty({n}, self.options().dtype(acc)), weights = at::empty({n}, self.options().dtype(acc));
  if (n > 0) {
    launch::KernelCall(self.device().index(), "loss/nll_loss", "nll_loss_forward", loss_options(self, n, weight))
        .buffer(input.const_data_ptr())
        .buffer(targets.const_data_ptr())
        .buffer(weight.defined() ? weight.const_data_ptr() : input.const_data_ptr())
        .buffer(losses.data_ptr())
        .buffer(weights.data_ptr())
        .value(static_cast<uint64_t>(classes))
        .value(ignore_index)
        .count(n)
        .launch(n);
  }
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

Tensor& nll_loss_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight_opt, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight, Tensor& grad_input) {
  detail::GivenOutputOp<at::meta::structured_nll_loss_backward, false> op(grad_input);
  op.meta(grad_output, self, target, detail::meta_arg(weight_opt), reduction, ignore_index, total_weight);
  const c10::DeviceGuard guard(self.device());
  const Tensor& result = op.maybe_get_output(0);
  const int64_t classes = self.size(-1), n = self.dim() == 1 ? 1 : self.size(0);
  const Tensor dense = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  dense.zero_();
  if (n > 0) {
    const Tensor targets = target.contiguous(), weight = defined_weight(weight_opt);
    const Tensor grad = grad_output.contiguous(), total = total_weight.to(self.scalar_type());
    std::string options = loss_options(self, n, weight);
    if (reduction == at::Reduction::None && self.dim() == 2) options += "-DNONE ";
    if (reduction == at::Reduction::Mean) options += "-DMEAN ";
    launch::KernelCall(self.device().index(), "loss/nll_loss", "nll_loss_backward", options)
        .buffer(dense.data_ptr())
        .buffer(targets.const_data_ptr())
        .buffer(weight.defined() ? weight.const_data_ptr() : dense.const_data_ptr())
        .buffer(grad.const_data_ptr())
        .buffer(total.const_data_ptr())
        .value(static_cast<uint64_t>(classes))
        .value(ignore_index)
        .count(n)
        .launch(n);
  }
  if (!dense.is_same(result)) result.copy_(dense);
  op.finish();
  return grad_input;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("nll_loss_forward.output", nll_loss_forward_out);
  m.impl("nll_loss_backward.grad_input", nll_loss_backward_out);
}

}  // namespace foo_cl::aten
