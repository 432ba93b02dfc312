// sort and topk along any dim (PyTorch's meta functions for shapes and checks, the bitonic sort of
// launch/Sort.h over rows moved to the last dim; sorting is always stable), unique over the sorted
// values or slices (boundaries of equal runs; NaNs stay distinct, as on CPU), and searchsorted and
// bucketize (kernels_cl/sort/searchsorted.cl, with CPU's argument checks); median, nanmedian and
// kthvalue as an element of the sorted slices, isin as a search of the sorted test elements.
#include "aten/Out.h"
#include "aten/Structured.h"
#include "launch/Sort.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/topk_meta.h>
#include <ATen/ops/isin_meta.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/div.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/full.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/diff.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/ones_like.h>
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

std::tuple<Tensor, Tensor> unique(const Tensor& self, bool sorted, bool return_inverse) {
  auto [values, inverse, counts] = unique2(self, sorted, return_inverse, false);
  return {values, inverse};
}

// Runs of equal consecutive elements (dim: slices) of self, in place: no sort, so the runs are
// the order itself (as CPU, NaNs are all distinct).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  const c10::DeviceGuard guard(self.device());
  const bool whole = !dim.has_value() || self.dim() == 0;
  const int64_t d = whole ? 0 : c10::maybe_wrap_dim(*dim, self.dim());
  const Tensor slices = whole ? self.reshape({-1, 1}) : self.movedim(d, 0).reshape({self.size(d), -1});
  const int64_t n = slices.size(0);
  Tensor inverse = at::empty(return_inverse ? (whole ? self.sizes() : c10::IntArrayRef{n}) : c10::IntArrayRef{0},
                             self.options().dtype(at::kLong));
  Tensor counts = at::empty({0}, self.options().dtype(at::kLong));
  if (n == 0 || slices.size(1) == 0) {
    return {whole ? at::empty({0}, self.options()) : self.clone(), inverse, counts};
  }
  const Tensor starts = at::cat({at::ones({1}, self.options().dtype(at::kBool)),
                                 slices.narrow(0, 1, n - 1).ne(slices.narrow(0, 0, n - 1)).any(1)});
  describe_runs(starts, at::arange(n, inverse.options()), return_inverse, return_counts, inverse, counts);
  const Tensor first = at::nonzero(starts).view(-1);
  if (whole) return {slices.view(-1).index_select(0, first), inverse, counts};
  return {self.index_select(d, first), inverse, counts};
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

// The most frequent value of each slice along `dim` (the smallest of equally frequent ones) and the
// last position it occurs at, as CPU: the longest run of the stably sorted slice, first among equals.
std::tuple<Tensor, Tensor> most_frequent(const Tensor& self, int64_t dim, bool keepdim) {
  const c10::DeviceGuard guard(self.device());
  const bool zero_dim = self.dim() == 0;
  const Tensor x = zero_dim ? self.unsqueeze(0) : self;
  dim = at::maybe_wrap_dim(dim, x.dim());
  TORCH_CHECK(x.size(dim) > 0, "mode(): Expected reduction dim ", dim, " to have non-zero size.");
  const auto [sorted, order] = at::sort(x.movedim(dim, -1), /*stable=*/true, -1, /*descending=*/false);
  const int64_t n = sorted.size(-1);
  const Tensor positions = at::arange(n, order.options()).expand(order.sizes());
  const Tensor changes = sorted.narrow(-1, 1, n - 1).ne(sorted.narrow(-1, 0, n - 1));
  const Tensor edge = at::ones_like(sorted.narrow(-1, 0, 1), at::kBool);
  const Tensor starts = at::cat({edge, changes}, -1), ends = at::cat({changes, edge}, -1);
  // A run's length, counted at its last element.
  const Tensor run_start = std::get<0>(at::where(starts, positions, 0).cummax(-1));
  const Tensor lengths = at::where(ends, positions - run_start + 1, 0);
  const Tensor at_mode = lengths.argmax(-1, /*keepdim=*/true);
  Tensor values = sorted.gather(-1, at_mode).movedim(-1, dim), indices = order.gather(-1, at_mode).movedim(-1, dim);
  if (!keepdim || zero_dim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> mode_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                      Tensor& indices) {
  return write_out(most_frequent(self, dim, keepdim), values, indices);
}

// The element at sorted position `position` (a tensor of positions, size 1 along `dim`) of each
// slice along `dim`, and its index: sorting is stable with NaNs last, so equal values keep their
// order and the first NaN of a slice is the first sorted past its numbers.
std::tuple<Tensor, Tensor> sorted_element(const Tensor& x, int64_t dim, const Tensor& position, bool keepdim,
                                          bool zero_dim) {
  const auto [sorted, order] = at::sort(x, /*stable=*/true, dim, /*descending=*/false);
  Tensor values = sorted.gather(dim, position), indices = order.gather(dim, position);
  if (!keepdim || zero_dim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}

// median: NaN (the slice's first) when a slice holds one, else its lower middle value; nanmedian
// leaves NaNs out (NaN only for slices of NaNs), as CPU.
std::tuple<Tensor, Tensor> median_along(const Tensor& self, int64_t dim, bool keepdim, bool ignore_nan) {
  const c10::DeviceGuard guard(self.device());
  const bool zero_dim = self.dim() == 0;
  const Tensor x = zero_dim ? self.unsqueeze(0) : self;
  dim = at::maybe_wrap_dim(dim, x.dim());
  const int64_t n = x.size(dim);
  TORCH_CHECK(n > 0, ignore_nan ? "nanmedian" : "median", "() cannot compute median for a dimension of size 0 ",
              "because the operation does not have an identity");
  std::vector<int64_t> shape = x.sizes().vec();
  shape[dim] = 1;
  Tensor position = at::full(shape, (n - 1) / 2, x.options().dtype(at::kLong));
  if (c10::isFloatingType(x.scalar_type())) {
    const Tensor nans = at::isnan(x).sum(dim, /*keepdim=*/true);
    position = ignore_nan ? at::div(n - 1 - nans, 2, "floor").clamp_min_(0) : at::where(nans > 0, n - nans, position);
  }
  return sorted_element(x, dim, position, keepdim, zero_dim);
}

template <bool IgnoreNan>
std::tuple<Tensor&, Tensor&> median_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                            Tensor& indices) {
  return write_out(median_along(self, dim, keepdim, IgnoreNan), values, indices);
}

template <bool IgnoreNan>
Tensor median_all(const Tensor& self) {
  if (self.numel() == 0) return at::full({}, NAN, self.options());
  return std::get<0>(median_along(self.reshape({-1}), 0, false, IgnoreNan));
}

std::tuple<Tensor&, Tensor&> kthvalue_out(const Tensor& self, int64_t k, int64_t dim, bool keepdim, Tensor& values,
                                          Tensor& indices) {
  at::assert_no_overlap(self, values);
  const c10::DeviceGuard guard(self.device());
  const bool zero_dim = self.dim() == 0;
  const Tensor x = zero_dim ? self.unsqueeze(0) : self;
  dim = at::maybe_wrap_dim(dim, x.dim());
  TORCH_CHECK(k >= 1 && k <= x.size(dim), "kthvalue(): selected number k out of range for dimension ", dim);
  std::vector<int64_t> shape = x.sizes().vec();
  shape[dim] = 1;
  return write_out(sorted_element(x, dim, at::full(shape, k - 1, x.options().dtype(at::kLong)), keepdim, zero_dim),
                   values, indices);
}

// Whether each element is among the test elements: a search of the sorted test elements (in the
// two's common dtype), whose hit must be equal (NaN never is).
void isin_kernel(at::meta::structured_isin_Tensor_Tensor& op, const Tensor& elements, const Tensor& test_elements,
                 bool /*assume_unique*/, bool invert) {
  const Tensor& out = op.maybe_get_output(0);
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  if (test_elements.numel() == 0) {
    out.fill_(invert);
    return;
  }
  const c10::ScalarType common = at::result_type(elements, test_elements);
  const Tensor sorted = std::get<0>(at::sort(test_elements.reshape({-1}).to(common)));
  const Tensor values = elements.to(common).contiguous();
  const Tensor at_position = at::searchsorted(sorted, values).clamp_max_(sorted.numel() - 1);
  const Tensor found = sorted.take(at_position) == values;
  out.copy_(invert ? found.logical_not() : found);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("median", median_all<false>);
  m.impl("nanmedian", median_all<true>);
  m.impl("median.dim_values", median_dim_out<false>);
  m.impl("nanmedian.dim_values", median_dim_out<true>);
  m.impl("kthvalue.values", kthvalue_out);
  register_structured_with_self<at::meta::structured_isin_Tensor_Tensor, const Tensor&, bool, bool>(
      m, "isin.Tensor_Tensor", nullptr, "isin.Tensor_Tensor_out", isin_kernel);
  m.impl("mode", most_frequent);
  m.impl("mode.values", mode_out);
  m.impl("_unique2", unique2);
  m.impl("_unique", unique);
  m.impl("unique_consecutive", unique_consecutive);
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
