// nll_loss launches: one work-item per row. The backward writes each row's target element into a
// zeroed grad_input (a dense one, copied in when grad_input is not contiguous).
#include "launch/Loss.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>
#include <string>

namespace foo_cl::launch {
namespace {

// nll_loss inputs are [rows, classes], or one row of [classes].
int64_t rows(const at::Tensor& t) {
  return t.dim() == 1 ? 1 : t.size(0);
}

std::string loss_options(const at::Tensor& t, int64_t n, const at::Tensor& weight) {
  std::string options = dtype_option("DT", t.scalar_type()) +
                        dtype_option("ACC", float_accumulate_type(t.scalar_type())) + index_option(n);
  if (weight.defined()) options += "-DWITH_WEIGHT ";
  return options;
}

}  // namespace

void launch_nll_loss(const at::Tensor& input, const at::Tensor& targets, const at::Tensor& weight,
                     int64_t ignore_index, const at::Tensor& losses, const at::Tensor& weights) {
  const int64_t n = rows(input);
  if (n == 0) return;
  const c10::DeviceGuard guard(input.device());
  KernelCall(input.device().index(), "loss/nll_loss", "nll_loss_forward", loss_options(input, n, weight))
      .buffer(input.const_data_ptr())
      .buffer(targets.const_data_ptr())
      .buffer(or_unused(weight, input))
      .buffer(losses.data_ptr())
      .buffer(weights.data_ptr())
      .value(static_cast<uint64_t>(input.size(-1)))
      .value(ignore_index)
      .error_word()
      .count(n)
      .launch(n);
}

void launch_nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& targets, const at::Tensor& weight,
                              const at::Tensor& total_weight, NllLossGrad kind, int64_t ignore_index,
                              const at::Tensor& grad_input) {
  const int64_t n = rows(grad_input);
  if (n == 0) return;
  const c10::DeviceGuard guard(grad_input.device());
  const at::Tensor dense = dense_output(grad_input);
  dense.zero_();
  std::string options = loss_options(grad_input, n, weight);
  if (kind == NllLossGrad::kPerRow) options += "-DNONE ";
  if (kind == NllLossGrad::kMean) options += "-DMEAN ";
  KernelCall(grad_input.device().index(), "loss/nll_loss", "nll_loss_backward", options)
      .buffer(dense.data_ptr())
      .buffer(targets.const_data_ptr())
      .buffer(or_unused(weight, dense))
      .buffer(grad_output.const_data_ptr())
      .buffer(total_weight.const_data_ptr())
      .value(static_cast<uint64_t>(grad_input.size(-1)))
      .value(ignore_index)
      .error_word()
      .count(n)
      .launch(n);
  copy_back(dense, grad_input);
}

}  // namespace foo_cl::launch
