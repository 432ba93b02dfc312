// sort and topk along any dim (PyTorch's meta functions for shapes and checks, the bitonic sort of
// launch/Sort.h over rows moved to the last dim; sorting is always stable), unique over the sorted
// values or slices (boundaries of equal runs; NaNs stay distinct, as on CPU), and searchsorted and
// bucketize (kernels_cl/sort/searchsorted.cl, with CPU's argument checks).
#include "aten/Structured.h"
#include "launch/Sort.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/topk_meta.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/diff.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/mode.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// values/indices get, along `dim`, the first values.size(dim) elements of self sorted along `dim`.
void sort_along(const Tensor& self, int64_t dim, bool descending, const Tensor& values, const Tensor& indices) {
  if (values.numel() == 0) return;
  const c10::DeviceGuard guard(self.device());
  if (self.dim() == 0) {
    values.copy_(self);
    indices.zero_();
    return;
  }
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const Tensor rows = self.movedim(dim, -1).contiguous();
  const int64_t n = rows.size(-1), m = values.size(dim);
  std::vector<int64_t> moved_shape = rows.sizes().vec();
  moved_shape.back() = m;
  const Tensor sorted = at::empty(moved_shape, rows.options());
  const Tensor positions = at::empty(moved_shape, rows.options().dtype(at::kLong));
  launch::launch_sort_rows(rows.view({-1, n}), sorted.view({-1, m}), positions.view({-1, m}), descending);
  values.copy_(sorted.movedim(-1, dim));
  indices.copy_(positions.movedim(-1, dim));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  detail::FunctionalOp<at::meta::structured_topk> op;
  op.meta(self, k, dim, largest, sorted);
  sort_along(self, dim, largest, op.outputs[0], op.outputs[1]);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}

std::tuple<Tensor&, Tensor&> topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                      Tensor& values, Tensor& indices) {
  detail::GivenOutputOp<at::meta::structured_topk, false> op(values, indices);
  op.meta(self, k, dim, largest, sorted);
  sort_along(self, dim, largest, op.maybe_get_output(0), op.maybe_get_output(1));
  op.finish();
  return {values, indices};
}

std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  detail::FunctionalOp<at::meta::structured_sort_stable> op;
  op.meta(self, stable, dim, descending);
  sort_along(self, dim, descending, op.outputs[0], op.outputs[1]);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}

std::tuple<Tensor&, Tensor&> sort_stable_out(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                             bool descending, Tensor& values, Tensor& indices) {
  detail::GivenOutputOp<at::meta::structured_sort_stable, false> op(values, indices);
  op.meta(self, stable, dim, descending);
  sort_along(self, dim, descending, op.maybe_get_output(0), op.maybe_get_output(1));
  op.finish();
  return {values, indices};
}

// From where runs of equal sorted values start and the sorted order: each element's run (in the
// original order) and each run's length, when asked for.
void describe_runs(const Tensor& starts, const Tensor& order, bool return_inverse, bool return_counts,
                   Tensor& inverse, Tensor& counts) {
  if (return_inverse) {
    const Tensor run = starts.cumsum(0, at::kLong) - 1;
    inverse.view(-1).scatter_(0, order, run);
  }
  if (return_counts) {
    const Tensor first = at::nonzero(starts).view(-1);
    counts = at::diff(first, 1, 0, std::nullopt, at::scalar_tensor(starts.numel(), first.options()).view({1}));
  }
}

// The sorted distinct values of self, with (return_inverse) each element's position among them and
// (return_counts) how often each occurs; outputs the caller did not ask for are empty.
std::tuple<Tensor, Tensor, Tensor> unique2(const Tensor& self, bool /*sorted*/, bool return_inverse,
                                           bool return_counts) {
  const c10::DeviceGuard guard(self.device());
  const Tensor flat = self.reshape(-1);
  const int64_t n = flat.numel();
  Tensor inverse = at::empty(return_inverse ? self.sizes() : c10::IntArrayRef{0}, self.options().dtype(at::kLong));
  Tensor counts = at::empty({0}, self.options().dtype(at::kLong));
  if (n == 0) return {at::empty({0}, self.options()), inverse, counts};
  const Tensor values = at::empty({n}, self.options());
  const Tensor order = at::empty({n}, self.options().dtype(at::kLong));
  sort_along(flat, 0, false, values, order);
  // A run starts where a value differs from the one before it (NaN differs from everything).
  const Tensor starts = at::cat({at::ones({1}, self.options().dtype(at::kBool)),
                                 values.narrow(0, 1, n - 1).ne(values.narrow(0, 0, n - 1))});
  describe_runs(starts, order, return_inverse, return_counts, inverse, counts);
  return {at::masked_select(values, starts), inverse, counts};
}

// The distinct slices of self along dim, in lexicographic order: stable sorts by each element of
// the slices from the last to the first, then runs of equal slices as in unique2.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool /*sorted*/, bool return_inverse,
                                              bool return_counts) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  const int64_t n = self.size(dim);
  Tensor inverse = at::empty({return_inverse ? n : 0}, self.options().dtype(at::kLong));
  Tensor counts = at::empty({0}, self.options().dtype(at::kLong));
  if (self.numel() == 0) {
    TORCH_CHECK(n == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    TORCH_CHECK(std::count(self.sizes().begin(), self.sizes().end(), 0) == 1,
                "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {at::empty(self.sizes(), self.options()), inverse, counts};
  }
  const Tensor slices = self.movedim(dim, 0).reshape({n, self.numel() / n});
  Tensor order = at::arange(n, self.options().dtype(at::kLong));
  const Tensor keys = at::empty({n}, self.options()), positions = at::empty({n}, order.options());
  for (int64_t column = slices.size(1) - 1; column >= 0; --column) {
    sort_along(slices.select(1, column).index_select(0, order), 0, false, keys, positions);
    order = order.index_select(0, positions);
  }
  const Tensor sorted = slices.index_select(0, order);
  const Tensor starts = at::cat({at::ones({1}, self.options().dtype(at::kBool)),
                                 sorted.narrow(0, 1, n - 1).ne(sorted.narrow(0, 0, n - 1)).any(1)});
  describe_runs(starts, order, return_inverse, return_counts, inverse, counts);
  std::vector<int64_t> shape = self.movedim(dim, 0).sizes().vec();
  shape[0] = -1;
  const Tensor distinct = sorted.index_select(0, at::nonzero(starts).view(-1)).view(shape).movedim(0, dim);
  return {distinct, inverse, counts};
}

Tensor& searchsorted_out(const Tensor& boundaries, const Tensor& self, bool out_int32, bool right,
                         std::optional<c10::string_view> side, const std::optional<Tensor>& sorter_opt, Tensor& out) {
  const Tensor sorter = sorter_opt.value_or(Tensor());
  at::native::searchsorted_pre_check(boundaries, self, out, out_int32, right, side, sorter);
  at::native::resize_output(out, self.sizes());
  if (self.numel() == 0) return out;
  const c10::DeviceGuard guard(self.device());
  Tensor input, sorted, order;
  at::native::searchsorted_maybe_trim_input_tensors(input, sorted, order, self, boundaries, sorter);
  input = input.defined() ? input : self;
  sorted = sorted.defined() ? sorted : boundaries;
  TORCH_CHECK_NOT_IMPLEMENTED(input.scalar_type() != at::kBool, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
  if (sorted.numel() == 0) return out.zero_();
  if (sorter.defined()) sorted = sorted.gather(-1, order.defined() ? order : sorter);
  launch::launch_searchsorted(sorted.contiguous(), input.contiguous(), right || (side && *side == "right"), out);
  return out;
}

Tensor searchsorted_tensor(const Tensor& boundaries, const Tensor& self, bool out_int32, bool right,
                    std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  Tensor out = at::empty({0}, self.options().dtype(out_int32 ? at::kInt : at::kLong));
  return searchsorted_out(boundaries, self, out_int32, right, side, sorter, out);
}

Tensor& searchsorted_scalar_out(const Tensor& boundaries, const c10::Scalar& self, bool out_int32, bool right,
                                std::optional<c10::string_view> side, const std::optional<Tensor>& sorter,
                                Tensor& out) {
  return searchsorted_out(boundaries, at::native::searchsorted_scalar_tensor(self, boundaries.device()), out_int32,
                          right, side, sorter, out);
}

Tensor searchsorted_scalar(const Tensor& boundaries, const c10::Scalar& self, bool out_int32, bool right,
                           std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted_tensor(boundaries, at::native::searchsorted_scalar_tensor(self, boundaries.device()),
                             out_int32, right, side, sorter);
}

Tensor& bucketize_out(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, Tensor& out) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted_out(boundaries, self, out_int32, right, std::nullopt, std::nullopt, out);
}

Tensor bucketize_tensor(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  Tensor out = at::empty({0}, self.options().dtype(out_int32 ? at::kInt : at::kLong));
  return bucketize_out(self, boundaries, out_int32, right, out);
}

Tensor bucketize_scalar(const c10::Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize_tensor(at::native::searchsorted_scalar_tensor(self, boundaries.device()), boundaries, out_int32,
                          right);
}

// mode's out= overload is composite in ATen and accepts only CPU, CUDA and XPU tensors: foo runs
// the functional mode (the CPU fallback) and copies the results.
std::tuple<Tensor&, Tensor&> mode_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                      Tensor& indices) {
  const auto [mode_values, mode_indices] = at::mode(self, dim, keepdim);
  at::native::resize_output(values, mode_values.sizes());
  at::native::resize_output(indices, mode_indices.sizes());
  values.copy_(mode_values);
  indices.copy_(mode_indices);
  return {values, indices};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mode.values", mode_out);
  m.impl("_unique2", unique2);
  m.impl("unique_dim", unique_dim);
  m.impl("searchsorted.Tensor", searchsorted_tensor);
  m.impl("searchsorted.Tensor_out", searchsorted_out);
  m.impl("searchsorted.Scalar", searchsorted_scalar);
  m.impl("searchsorted.Scalar_out", searchsorted_scalar_out);
  m.impl("bucketize.Tensor", bucketize_tensor);
  m.impl("bucketize.Tensor_out", bucketize_out);
  m.impl("bucketize.Scalar", bucketize_scalar);
  m.impl("topk", topk);
  m.impl("topk.values", topk_out);
  m.impl("sort.stable", sort_stable);
  m.impl("sort.values_stable", sort_stable_out);
}

}  // namespace foo_cl::aten
