// sort and topk along any dim (PyTorch's meta functions for shapes and checks, the bitonic sort of
// launch/Sort.h over rows moved to the last dim). Sorting is always stable.
#include "aten/Structured.h"
#include "launch/Sort.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/topk_meta.h>
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

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("topk", topk);
  m.impl("topk.values", topk_out);
  m.impl("sort.stable", sort_stable);
  m.impl("sort.values_stable", sort_stable_out);
}

}  // namespace foo_cl::aten
