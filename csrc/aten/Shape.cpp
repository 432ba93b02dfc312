// Ops that rearrange whole tensors, composed of foo's copy and index kernels: cat (and so stack),
// flip, roll, channel_shuffle, and unfold's backward.
#include "aten/Structured.h"
#include "launch/Copy.h"

#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/ops/cat_meta.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// Legacy behaviour kept by PyTorch's cat: 1-d empty tensors are skipped whatever the other shapes.
bool skipped_in_cat(const Tensor& t) {
  return t.dim() == 1 && t.numel() == 0;
}

template <class Op>
void cat_into(Op& op, const at::ITensorListRef& tensors, int64_t dim) {
  const Tensor& out = op.maybe_get_output(0);
  for (const Tensor& t : tensors) {
    TORCH_CHECK(skipped_in_cat(t) || t.device() == out.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ", out.device(),
                " and ", t.device(), "!");
  }
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped_in_cat(t)) continue;
    out.narrow(dim, offset, t.size(dim)).copy_(t);
    offset += t.size(dim);
  }
}

Tensor cat(const at::ITensorListRef& tensors, int64_t dim) {
  detail::FunctionalOp<at::meta::structured_cat> op;
  const auto precompute = op.meta(tensors, dim);
  cat_into(op, tensors, precompute.dim);
  return std::move(op.outputs[0]);
}

Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, Tensor& out) {
  detail::GivenOutputOp<at::meta::structured_cat, false> op(out);
  const auto precompute = op.meta(tensors, dim);
  cat_into(op, tensors, precompute.dim);
  op.finish();
  return out;
}

// A copy into a tensor walked from its far end along the flipped dims (launch_flip).
Tensor flip_dims(const Tensor& self, c10::IntArrayRef dims) {
  const c10::DeviceGuard guard(self.device());
  const auto wrapped = at::dim_list_to_bitset(dims, self.dim());
  Tensor out = at::empty_like(self, at::MemoryFormat::Preserve);
  launch::launch_flip(out, self, wrapped);
  return out;
}

// As CPU: without dims the flattened tensor rolls; each (shift, dim) pair rolls along its dim.
Tensor roll_dims(const Tensor& self, c10::IntArrayRef shifts, c10::IntArrayRef dims) {
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    const int64_t flat_dim[] = {0};
    return roll_dims(self.flatten(), shifts, flat_dim).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  const c10::DeviceGuard guard(self.device());
  Tensor result = self.clone();
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = c10::maybe_wrap_dim(dims[k], self.dim());
    const int64_t size = result.size(d);
    if (size == 0) continue;
    const int64_t shift = ((shifts[k] % size) + size) % size;
    if (shift == 0) continue;
    const Tensor source = result.clone();
    result.narrow(d, shift, size - shift).copy_(source.narrow(d, 0, size - shift));
    result.narrow(d, 0, shift).copy_(source.narrow(d, size - shift, shift));
  }
  return result;
}

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes ",
              self.sizes());
  TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive.", " Value of groups:", groups);
  const int64_t channels = self.size(1);
  TORCH_CHECK(channels % groups == 0, "Number of channels must be divisible by groups. Got ", channels,
              " channels and ", groups, " groups.");
  std::vector<int64_t> grouped = self.sizes().vec();
  grouped[1] = channels / groups;
  grouped.insert(grouped.begin() + 1, groups);
  return self.reshape(grouped).transpose(1, 2).reshape(self.sizes()).contiguous(self.suggest_memory_format());
}

// The gradient of Tensor.unfold(dim, size, step): element k of every window adds into its input
// position; one strided add per window offset k (the windows overlap when step < size).
Tensor unfold_backward(const Tensor& grad, c10::IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  const c10::DeviceGuard guard(grad.device());
  if (input_sizes.empty()) return grad.sum().reshape({});
  dim = at::maybe_wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  Tensor out = at::zeros(input_sizes, grad.options());
  const int64_t windows = grad.size(dim);
  if (windows == 0) return out;
  for (int64_t k = 0; k < size; ++k) {
    out.slice(dim, k, k + (windows - 1) * step + 1, step).add_(grad.select(-1, k));
  }
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("channel_shuffle", channel_shuffle);
  m.impl("unfold_backward", unfold_backward);
  m.impl("cat", cat);
  m.impl("cat.out", cat_out);
  m.impl("flip", flip_dims);
  m.impl("roll", roll_dims);
}

}  // namespace foo_cl::aten
