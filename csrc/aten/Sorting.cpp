// sort and topk along any dim (PyTorch's meta functions for shapes and checks, the bitonic sort of
// launch/Sort.h over rows moved to the last dim; sorting is always stable), and unique over the
// sorted values (boundaries of equal runs; NaNs stay distinct, as on CPU).
#include "aten/Structured.h"
#include "launch/Sort.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/topk_meta.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/diff.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/DeviceGuard.h>

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
  const Tensor unique_values = at::masked_select(values, starts);
  if (return_inverse) {
    const Tensor run = starts.cumsum(0, at::kLong) - 1;
    inverse.view(-1).scatter_(0, order, run);
  }
  if (return_counts) {
    const Tensor first = at::nonzero(starts).view(-1);
    counts = at::diff(first, 1, 0, std::nullopt, at::scalar_tensor(n, first.options()).view({1}));
  }
  return {unique_values, inverse, counts};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_unique2", unique2);
  m.impl("topk", topk);
  m.impl("topk.values", topk_out);
  m.impl("sort.stable", sort_stable);
  m.impl("sort.values_stable", sort_stable_out);
}

}  // namespace foo_cl::aten
