// Indexing: index_select (and so embedding), the embedding's dense backward (a sort of the
// indices, then one deterministic sum per weight row), masked_select and nonzero (a running count
// of the selected elements gives each its slot), tril and triu.
#include "launch/Launch.h"
#include "launch/Sort.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/select.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/native/Resize.h>
#include <ATen/WrapDimUtils.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// As CPU: a position outside [0, size) raises IndexError (one wait for the device).
void check_positions(const Tensor& index, int64_t size) {
  if (index.numel() == 0) return;
  const auto [low, high] = at::aminmax(index);
  TORCH_CHECK_INDEX(low.item<int64_t>() >= 0 && high.item<int64_t>() < size, "index out of range in self");
}

Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "index_select(): self and result must have the same scalar type");
  TORCH_CHECK(index.device() == self.device() && out.device() == self.device(),
              "index_select(): self, index and out must be on the same device, got ", self.device(), ", ",
              index.device(), " and ", out.device());
  TORCH_CHECK(self.dim() > 0 || index.numel() <= 1, "index_select(): Index to scalar can have only 1 value, got ",
              index.numel(), " value(s)");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[dim] = index.numel();
  at::native::resize_output(out, shape);
  if (out.numel() == 0) return out;
  TORCH_CHECK_INDEX(size > 0, "index_select(): self indexing axis dim should be positive");
  const c10::DeviceGuard guard(self.device());
  check_positions(index, size);
  const Tensor src = self.contiguous(), positions = index.contiguous();
  const Tensor dense = out.is_contiguous() ? out : at::empty(shape, out.options());
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t n = dense.numel();
  launch::KernelCall(self.device().index(), "index/index_select", "index_select_contig",
                     std::string("-DDT=") + launch::bits_dtype_name(self.scalar_type()) + " " +
                         launch::dtype_option("INDEX", index.scalar_type()) + launch::index_option(n))
      .buffer(src.const_data_ptr())
      .buffer(positions.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(static_cast<uint64_t>(size))
      .value(static_cast<uint64_t>(index.numel()))
      .value(static_cast<uint64_t>(inner))
      .count(n)
      .launch(n);
  if (!dense.is_same(out)) out.copy_(dense);
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = at::empty({0}, self.options());
  return index_select_out(self, dim, index, out);
}

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const c10::DeviceGuard guard(grad_output.device());
  const int64_t dim = grad_output.size(-1), m = indices.numel();
  Tensor out = at::empty({num_weights, dim}, grad_output.options());
  if (out.numel() == 0) return out;
  if (m == 0) return out.zero_();
  const Tensor keys = indices.reshape({1, m}).to(at::kLong).contiguous();
  const Tensor sorted = at::empty_like(keys), order = at::empty_like(keys);
  launch::launch_sort_rows(keys, sorted, order, /*descending=*/false);
  const Tensor grad = grad_output.contiguous();
  const int64_t n = out.numel();
  std::string options = launch::dtype_option("DT", grad.scalar_type()) +
                        launch::dtype_option("ACC", grad.scalar_type() == at::kDouble ? at::kDouble : at::kFloat) +
                        launch::index_option(n);
  if (scale_grad_by_freq) options += "-DSCALE_BY_FREQUENCY ";
  launch::KernelCall(grad.device().index(), "index/embedding_backward", "embedding_backward", options)
      .buffer(grad.const_data_ptr())
      .buffer(sorted.const_data_ptr())
      .buffer(order.const_data_ptr())
      .buffer(out.data_ptr())
      .value(static_cast<uint64_t>(m))
      .value(static_cast<uint64_t>(dim))
      .value(padding_idx)
      .count(n)
      .launch(n);
  return out;
}

// The selected elements as a contiguous bool tensor and their inclusive running count; returns
// how many there are (the output size: one wait for the device, as on CPU and CUDA).
int64_t count_selected(const Tensor& condition, Tensor& selected, Tensor& positions) {
  selected = condition.ne(0).contiguous();
  positions = selected.view(-1).cumsum(0, at::kLong);
  return selected.numel() == 0 ? 0 : positions[-1].item<int64_t>();
}

Tensor& masked_select_out(const Tensor& self, const Tensor& mask, Tensor& out) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_select: expected BoolTensor for mask");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "masked_select(): self and result must have the same scalar type");
  const c10::DeviceGuard guard(self.device());
  auto [values, condition] = at::expand_outplace(self, mask);
  Tensor selected, positions;
  const int64_t count = count_selected(*condition, selected, positions);
  at::native::resize_output(out, {count});
  if (count == 0) return out;
  const Tensor dense_values = values->contiguous();
  const Tensor dense = out.is_contiguous() ? out : at::empty({count}, out.options());
  const int64_t n = selected.numel();
  launch::KernelCall(self.device().index(), "index/compact", "masked_select_contig",
                     std::string("-DDT=") + launch::bits_dtype_name(self.scalar_type()) + " -DNDIM=1 " +
                         launch::index_option(n))
      .buffer(dense_values.const_data_ptr())
      .buffer(selected.const_data_ptr())
      .buffer(positions.const_data_ptr())
      .buffer(dense.data_ptr())
      .count(n)
      .launch(n);
  if (!dense.is_same(out)) out.copy_(dense);
  return out;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  Tensor out = at::empty({0}, self.options());
  return masked_select_out(self, mask, out);
}

Tensor& nonzero_out(const Tensor& self, Tensor& out) {
  TORCH_CHECK(out.scalar_type() == at::kLong, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
              out.scalar_type());
  TORCH_CHECK(self.dim() <= launch::kMaxDims, "nonzero: foo supports tensors of up to ", launch::kMaxDims,
              " dims, got ", self.dim());
  const c10::DeviceGuard guard(self.device());
  Tensor selected, positions;
  const int64_t count = count_selected(self, selected, positions);
  at::native::resize_output(out, {count, self.dim()});
  if (count == 0 || self.dim() == 0) {
    if (self.dim() == 0) at::native::resize_output(out, {count, 0});
    return out;
  }
  struct Sizes {
    int64_t size[launch::kMaxDims];
  } sizes{};
  for (int64_t d = 0; d < self.dim(); ++d) sizes.size[d] = self.size(d);
  const Tensor dense = out.is_contiguous() ? out : at::empty({count, self.dim()}, out.options());
  const int64_t n = selected.numel();
  launch::KernelCall(self.device().index(), "index/compact", "nonzero_contig",
                     "-DDT=uint8 -DNDIM=" + std::to_string(self.dim()) + " " + launch::index_option(n))
      .buffer(selected.const_data_ptr())
      .buffer(positions.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(sizes)
      .count(n)
      .launch(n);
  if (!dense.is_same(out)) out.copy_(dense);
  return out;
}

Tensor nonzero(const Tensor& self) {
  Tensor out = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_out(self, out);
}

// tril keeps column - row <= diagonal of the last two dims, triu column - row >= diagonal.
Tensor& triangle_out(const Tensor& self, int64_t diagonal, Tensor& out, bool lower) {
  TORCH_CHECK(self.dim() >= 2, lower ? "tril" : "triu", ": input tensor must have at least 2 dimensions");
  const c10::DeviceGuard guard(self.device());
  const int64_t rows = self.size(-2), cols = self.size(-1);
  const Tensor offsets = at::arange(cols, self.options().dtype(at::kLong)).view({1, cols}) -
                         at::arange(rows, self.options().dtype(at::kLong)).view({rows, 1});
  const Tensor keep = lower ? offsets.le(diagonal) : offsets.ge(diagonal);
  const Tensor result = at::where(keep, self, at::zeros({}, self.options()));
  if (!out.is_same(self)) at::native::resize_output(out, self.sizes());
  return out.copy_(result);
}

Tensor& tril_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle_out(self, diagonal, out, true);
}

Tensor& triu_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle_out(self, diagonal, out, false);
}

Tensor& tril_(Tensor& self, int64_t diagonal) {
  return triangle_out(self, diagonal, self, true);
}

Tensor& triu_(Tensor& self, int64_t diagonal) {
  return triangle_out(self, diagonal, self, false);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("index_select", index_select);
  m.impl("index_select.out", index_select_out);
  m.impl("embedding_dense_backward", embedding_dense_backward);
  m.impl("masked_select", masked_select);
  m.impl("masked_select.out", masked_select_out);
  m.impl("nonzero", nonzero);
  m.impl("nonzero.out", nonzero_out);
  m.impl("tril.out", tril_out);
  m.impl("triu.out", triu_out);
  m.impl("tril_", tril_);
  m.impl("triu_", triu_);
}

}  // namespace foo_cl::aten
