// Indexing (launch/Index): index_select (and so embedding; its dense backward sums each weight row
// deterministically; max_norm rescales rows), EmbeddingBag (a kernel per bag and feature; sum and
// mean gradients through the embedding backward, max gradients scattered), masked_select,
// masked_scatter_ and nonzero (a running count of the selected elements gives each its slot),
// advanced indexing (indexed dims merged into one, then index_select, scatter or scatter_add along
// it), tril and triu.
#include "aten/Out.h"
#include "launch/Index.h"
#include "launch/Launch.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/TensorOperators.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/ops/_unique2.h>
#include <ATen/ops/index_copy.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/movedim.h>
#include <ATen/ops/scatter.h>
#include <ATen/ops/scatter_add.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/select.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/native/Resize.h>
#include <ATen/WrapDimUtils.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/accumulate.h>
#include <torch/library.h>

#include <algorithm>

namespace foo_cl::aten {
namespace {

using at::Tensor;

Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "index_select(): self and result must have the same scalar type");
  TORCH_CHECK(index.device() == self.device() && out.device() == self.device(),
              "index_select(): self, index and out must be on the same device, got ", self.device(), ", ",
              index.device(), " and ", out.device());
  at::assert_no_internal_overlap(out);  // as CPU: kernels reading what they write give wrong values
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
  TORCH_CHECK(self.dim() > 0 || index.numel() <= 1, "index_select(): Index to scalar can have only 1 value, got ",
              index.numel(), " value(s)");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[dim] = index.numel();
  at::native::resize_output(out, shape);
  if (out.numel() == 0) return out;
  TORCH_CHECK_INDEX(size > 0, "index out of range in self");
  const c10::DeviceGuard guard(self.device());
  const Tensor src = self.contiguous(), positions = index.contiguous();
  launch::launch_index_select(src, dim, positions, out);
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = at::empty({0}, self.options());
  return index_select_out(self, dim, index, out);
}

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const c10::DeviceGuard guard(grad_output.device());
  Tensor out = at::empty({num_weights, grad_output.size(-1)}, grad_output.options());
  if (out.numel() == 0) return out;
  if (indices.numel() == 0) return out.zero_();
  launch::launch_embedding_backward(grad_output, indices, padding_idx, scale_grad_by_freq, out);
  return out;
}

// As CPU: each row that indices name whose norm exceeds max_norm is scaled by max_norm / (norm + 1e-7).
Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  TORCH_CHECK(self.dim() == 2, "embedding_renorm_(): expected a 2-d weight, but got ", self.dim(), " dims");
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt,
              "embedding_renorm_(): expected indices of dtype int64 or int32, but got ", indices.scalar_type());
  const c10::DeviceGuard guard(self.device());
  const Tensor rows = std::get<0>(at::_unique2(indices.reshape(-1).to(at::kLong), true, false, false));
  if (rows.numel() == 0) return self;
  const Tensor weights = self.index_select(0, rows);
  const Tensor norms = at::linalg_vector_norm(weights, norm_type, {1}, /*keepdim=*/true, std::nullopt);
  const Tensor scale = at::where(norms > max_norm, (norms + 1e-7).reciprocal() * max_norm, 1.0);
  self.index_copy_(0, rows, weights * scale);
  return self;
}

constexpr int64_t kBagSum = 0, kBagMean = 1, kBagMax = 2;  // embedding_bag's modes

// nn.EmbeddingBag: indices and offsets promoted to one dtype, then launch_embedding_bag, whose kernel
// reports bad ones at the next synchronisation. Returns (output, offset2bag, bag_size, max_indices) as CUDA
// does; max_indices is empty but in max mode, where an empty bag's entries are -1.
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices_,
                                                         const Tensor& offsets_, bool /*scale_grad_by_freq*/,
                                                         int64_t mode, bool /*sparse*/,
                                                         const std::optional<Tensor>& per_sample_weights_,
                                                         bool include_last_offset, int64_t padding_idx) {
  TORCH_CHECK(weight.dim() == 2, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension ",
              weight.dim());
  TORCH_CHECK(indices_.dim() == 1, "embedding_bag: input has to be a 1D Tensor, but got Tensor of dimension ",
              indices_.dim());
  TORCH_CHECK(offsets_.dim() == 1, "embedding_bag: offsets has to be a 1D Tensor, but got Tensor of dimension ",
              offsets_.dim());
  for (const Tensor& t : {indices_, offsets_}) {
    TORCH_CHECK(t.scalar_type() == at::kLong || t.scalar_type() == at::kInt,
                "embedding_bag: expected indices and offsets of dtype int64 or int32, but got ", t.scalar_type());
    TORCH_CHECK(t.device() == weight.device(), "embedding_bag: expected indices and offsets on ", weight.device(),
                " like weight, but got ", t.device());
  }
  TORCH_CHECK(mode >= kBagSum && mode <= kBagMax, "embedding_bag: unknown mode ", mode);
  const bool weighted = per_sample_weights_.has_value() && per_sample_weights_->defined();
  const std::optional<Tensor> per_sample_weights = weighted ? per_sample_weights_ : std::nullopt;
  if (weighted) {
    TORCH_CHECK(mode == kBagSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TORCH_CHECK(per_sample_weights->dim() == 1 && per_sample_weights->numel() == indices_.numel(),
                "embedding_bag: per_sample_weights must be 1-D with one weight per index (", indices_.numel(),
                "), but got shape ", per_sample_weights->sizes());
    TORCH_CHECK(per_sample_weights->scalar_type() == weight.scalar_type() &&
                    per_sample_weights->device() == weight.device(),
                "embedding_bag: per_sample_weights must have weight's dtype and device (", weight.scalar_type(), " on ",
                weight.device(), "), but got ", per_sample_weights->scalar_type(), " on ",
                per_sample_weights->device());
  }
  const at::ScalarType index_type = at::promote_types(indices_.scalar_type(), offsets_.scalar_type());
  const Tensor indices = indices_.to(index_type).contiguous(), offsets = offsets_.to(index_type).contiguous();
  const int64_t n = indices.numel();
  TORCH_CHECK(!include_last_offset || offsets.numel() >= 1, "include_last_offset: numBags should be at least 1");
  const int64_t bags = offsets.numel() - (include_last_offset ? 1 : 0);
  const c10::DeviceGuard guard(weight.device());

  // Indices and offsets are checked by the kernel (launch_embedding_bag), without a wait; without
  // indices or bags there is no kernel, and the offsets (all 0 if valid) are checked here.
  if ((n == 0 || bags == 0) && offsets.numel() > 0) {
    TORCH_CHECK(offsets.eq(0).all().item<bool>(),
                "embedding_bag: without indices or bags every offset has to be 0, but got ", offsets.cpu());
  }

  const Tensor out = at::empty({bags, weight.size(1)}, weight.options());
  const Tensor offset2bag = at::empty({n}, indices.options());
  // As CUDA (and the meta kernel for devices other than the CPU): one entry an offset, the last 0
  // with include_last_offset.
  const Tensor bag_size = at::empty(offsets.sizes(), indices.options());
  if (include_last_offset) bag_size.narrow(0, bags, 1).zero_();
  const Tensor max_indices = at::empty(mode == kBagMax ? at::IntArrayRef{bags, weight.size(1)} : at::IntArrayRef{0},
                                       indices.options());
  if (n == 0 || bags == 0) {
    // No index in any bag (indices past the offsets of no bag have no gradient): nothing reads offset2bag.
    out.zero_();
    bag_size.zero_();
    max_indices.fill_(-1);
  } else if (weight.size(1) > 0) {
    launch::launch_embedding_bag(weight, indices, offsets, per_sample_weights, mode, padding_idx, out, offset2bag,
                                 bag_size, max_indices);
  } else if (bags > 0) {
    // No features to fold: a one-feature stand-in still gives each index its bag and each bag its size.
    const Tensor feature = at::zeros({weight.size(0), 1}, weight.options());
    launch::launch_embedding_bag(feature, indices, offsets, per_sample_weights, mode, padding_idx,
                                 at::empty({bags, 1}, weight.options()), offset2bag, bag_size,
                                 mode == kBagMax ? at::empty({bags, 1}, indices.options()) : max_indices);
  }
  return {out, offset2bag, bag_size, max_indices};
}

constexpr const char* kNoSparseGradients =
    "foo has no sparse tensors, so sparse=True gradients are not supported; use sparse=False";

// nn.Embedding(sparse=True)'s gradient: raises, where it would fail to build a sparse tensor.
Tensor embedding_sparse_backward(const Tensor& /*grad*/, const Tensor& /*indices*/, int64_t /*num_weights*/,
                                 int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/) {
  TORCH_CHECK(false, "embedding: ", kNoSparseGradients);
}

// Sum and mean: each index's row folds in its bag's gradient (launch_embedding_backward's bags);
// max: each maximum's row takes the gradient of its bag and feature.
Tensor embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                    const Tensor& bag_size, const Tensor& max_indices, int64_t num_weights,
                                    bool scale_grad_by_freq, int64_t mode,
                                    const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const c10::DeviceGuard guard(grad.device());
  Tensor out = at::zeros({num_weights, grad.size(1)}, grad.options());
  if (out.numel() == 0 || indices.numel() == 0 || grad.size(0) == 0) return out;
  if (mode == kBagMax) {
    const Tensor rows = max_indices.to(at::kLong);
    const Tensor empty = rows.lt(0);
    return out.scatter_add_(0, rows.masked_fill(empty, 0), grad.masked_fill(empty, 0));
  }
  const launch::Bags bags{offset2bag.contiguous(), bag_size.contiguous(),
                          per_sample_weights && per_sample_weights->defined() ? per_sample_weights : std::nullopt,
                          mode == kBagMean};
  launch::launch_embedding_backward(grad, indices, padding_idx, scale_grad_by_freq, out, &bags);
  return out;
}

Tensor embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& /*offsets*/,
                              const Tensor& offset2bag, const Tensor& bag_size, const Tensor& max_indices,
                              int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                              const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  TORCH_CHECK(!sparse, "embedding_bag: ", kNoSparseGradients);
  return embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, max_indices, num_weights,
                                      scale_grad_by_freq, mode, per_sample_weights, padding_idx);
}

// The gradient of sum mode's per-sample weight i: its bag's gradient row dotted with its weight row
// (0 for padding_idx).
Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                 const Tensor& /*offsets*/, const Tensor& offset2bag, int64_t mode,
                                                 int64_t padding_idx) {
  TORCH_CHECK(mode == kBagSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  const c10::DeviceGuard guard(grad.device());
  if (grad.size(0) == 0) return at::zeros({indices.numel()}, grad.options());
  const Tensor dots = (grad.index_select(0, offset2bag) * weight.index_select(0, indices)).sum(1);
  return padding_idx < 0 ? dots : dots.masked_fill(indices.eq(padding_idx), 0);
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
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, mask);
  const c10::DeviceGuard guard(self.device());
  auto [values, condition] = at::expand_outplace(self, mask);
  Tensor selected, positions;
  const int64_t count = count_selected(*condition, selected, positions);
  at::native::resize_output(out, {count});
  if (count == 0) return out;
  launch::launch_masked_select(values->contiguous(), selected, positions, out);
  return out;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  Tensor out = at::empty({0}, self.options());
  return masked_select_out(self, mask, out);
}

// self[mask] = source's first elements in order: each selected element reads the source at its
// running count.
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter_: expected self and source to have same dtypes but got", self.scalar_type(), " and ",
              source.scalar_type());
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const c10::DeviceGuard guard(self.device());
  Tensor selected, positions;
  const int64_t count = count_selected(*at::expand_inplace(self, mask), selected, positions);
  TORCH_CHECK(count <= source.numel(), "masked_scatter_: Number of elements of source < number of ones in mask");
  if (count == 0) return self;
  const Tensor taken = source.reshape(-1).index_select(0, (positions - 1).clamp_min_(0)).view(self.sizes());
  self.copy_(at::where(selected.view(self.sizes()), taken, self));
  return self;
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
  launch::launch_nonzero(selected, positions, out);
  return out;
}

Tensor nonzero(const Tensor& self) {
  Tensor out = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_out(self, out);
}

// nonzero's first `size` rows, padded with fill_value rows when there are fewer.
Tensor nonzero_static(const Tensor& self, int64_t size, int64_t fill_value) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer, but got size: ", size);
  const Tensor found = at::nonzero(self);
  const int64_t rows = std::min(size, found.size(0));
  Tensor out = at::full({size, self.dim()}, fill_value, found.options());
  out.narrow(0, 0, rows).copy_(found.narrow(0, 0, rows));
  return out;
}

// repeat_interleave's index form: position j repeated repeats[j] times ([2, 1] -> [0, 0, 1]), as a
// search of the running sums.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TORCH_CHECK(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
              "repeats has to be Long or Int tensor");
  if (repeats.size(0) == 0) return at::empty_like(repeats, at::MemoryFormat::Contiguous);
  const c10::DeviceGuard guard(repeats.device());
  TORCH_CHECK((repeats >= 0).all().item<bool>(), "repeats can not be negative");
  const Tensor ends = repeats.cumsum(0);
  const int64_t total = output_size ? *output_size : ends[-1].item<int64_t>();
  const Tensor positions = at::arange(total, ends.options());
  return at::searchsorted(ends, positions, repeats.scalar_type() == at::kInt, /*right=*/true);
}

// Advanced indexing, on self with its indexed dims moved to the front and merged into one: the
// merged positions (indices broadcast, negatives wrapped, checked by launch_positions: bad ones 0 for
// reads, -1 for writes, which the scatters leave out), their shape, and where the
// result's indexed dims go (numpy's rule: in place if the indexed dims are adjacent, else first).
struct MergedIndex {
  Tensor front;                         // self, indexed dims first (a view)
  Tensor positions;                     // int64, index_shape
  std::vector<int64_t> index_shape;
  int64_t indexed = 0;                  // how many dims were indexed
  int64_t place = 0;                    // where the index dims go in the result
};

MergedIndex merge_indices(const Tensor& self, const c10::List<std::optional<Tensor>>& indices, bool for_writes) {
  std::vector<Tensor> expanded = at::native::expandTensors(self, indices);
  TORCH_CHECK_INDEX(expanded.size() <= static_cast<size_t>(self.dim()), "too many indices for tensor of dimension ",
                    self.dim(), " (got ", expanded.size(), ")");
  expanded.resize(self.dim());  // transposeToFront expects one entry per dim
  MergedIndex m;
  const bool adjacent = at::native::hasContiguousSubspace(expanded);
  for (size_t d = 0; d < expanded.size(); ++d) {
    if (expanded[d].defined()) {
      if (m.indexed == 0) m.place = adjacent ? static_cast<int64_t>(d) : 0;
      ++m.indexed;
      TORCH_CHECK_INDEX(!c10::isFloatingType(expanded[d].scalar_type()),
                        "tensors used as indices must be long, int, byte or bool tensors");
      expanded[d] = expanded[d].to(self.device(), at::kLong);
    }
  }
  TORCH_CHECK(m.indexed > 0, "at least one index must be provided");
  std::vector<Tensor> ordered;
  std::tie(m.front, ordered) = at::native::transposeToFront(self, expanded);
  std::vector<Tensor> defined(ordered.begin(), ordered.begin() + m.indexed);
  defined = at::expand_outplace(defined);
  m.index_shape = defined[0].sizes().vec();
  for (int64_t j = 0; j < m.indexed; ++j) {
    const int64_t size = m.front.size(j);
    TORCH_CHECK_INDEX(size > 0 || defined[j].numel() == 0, "index is out of bounds for dimension with size 0");
    m.positions = launch::launch_positions(defined[j], size, /*wrap=*/true, for_writes, m.positions);
  }
  return m;
}

// The rest of `front` after its first `indexed` dims, preceded by the indexed dims merged into one
// (explicit sizes: a -1 cannot be inferred when the rest holds a zero).
std::vector<int64_t> merged_shape(const MergedIndex& m) {
  std::vector<int64_t> shape{1};
  for (int64_t d = 0; d < m.indexed; ++d) shape[0] *= m.front.size(d);
  const auto rest = m.front.sizes().slice(m.indexed);
  shape.insert(shape.end(), rest.begin(), rest.end());
  return shape;
}

Tensor& index_out(const Tensor& self, const c10::List<std::optional<Tensor>>& indices, Tensor& out) {
  const c10::DeviceGuard guard(self.device());
  const MergedIndex m = merge_indices(self, indices, /*for_writes=*/false);
  const std::vector<int64_t> merged = merged_shape(m);
  const std::vector<int64_t> rest(merged.begin() + 1, merged.end());
  Tensor result = at::index_select(m.front.reshape(merged), 0, m.positions.reshape(-1));
  std::vector<int64_t> shape = m.index_shape;
  shape.insert(shape.end(), rest.begin(), rest.end());
  result = result.view(shape);
  const int64_t k = static_cast<int64_t>(m.index_shape.size());
  if (m.place > 0 && k > 0) {
    std::vector<int64_t> from(k), to(k);
    for (int64_t i = 0; i < k; ++i) from[i] = i, to[i] = m.place + i;
    result = result.movedim(from, to);
  }
  return write_out(result, out);
}

Tensor index(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  Tensor out = at::empty({0}, self.options());
  return index_out(self, indices, out);
}

// self[indices] = values: a scatter along the merged dim of a contiguous copy of self's front view,
// copied back. With accumulate, as on CUDA, the rows named by each position sum their values in
// order (float32 for 16-bit floats, rounded once), so the result is deterministic.
Tensor& index_put_impl_(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values,
                        bool accumulate, bool /*unsafe*/) {
  TORCH_CHECK(values.device() == self.device() || (values.dim() == 0 && values.device().is_cpu()),
              "Expected all tensors to be on the same device, but found at least two devices, ", self.device(),
              " and ", values.device(), "! (in index_put_: values)");
  TORCH_CHECK(values.scalar_type() == self.scalar_type(),
              "Index put requires the source and destination dtypes match, got ", self.scalar_type(),
              " for the destination and ", values.scalar_type(), " for the source.");
  const c10::DeviceGuard guard(self.device());
  const MergedIndex m = merge_indices(self, indices, /*for_writes=*/true);
  const std::vector<int64_t> merged = merged_shape(m);
  const std::vector<int64_t> rest(merged.begin() + 1, merged.end());
  const int64_t k = static_cast<int64_t>(m.index_shape.size());
  // values as the indexing result is shaped, then with the index dims first.
  std::vector<int64_t> shape = m.index_shape;
  shape.insert(shape.end(), rest.begin(), rest.end());
  if (m.place > 0 && k > 0) std::rotate(shape.begin(), shape.begin() + k, shape.begin() + k + m.place);
  TORCH_CHECK(at::is_expandable_to(values.sizes(), shape), "shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ", c10::IntArrayRef(shape));
  Tensor vals = values.to(self.device()).expand(shape);
  if (m.place > 0 && k > 0) {
    std::vector<int64_t> from(k), to(k);
    for (int64_t i = 0; i < k; ++i) from[i] = m.place + i, to[i] = i;
    vals = vals.movedim(from, to);
  }
  const int64_t count = m.positions.numel();
  std::vector<int64_t> flat_shape{count};
  flat_shape.insert(flat_shape.end(), rest.begin(), rest.end());
  vals = vals.reshape(flat_shape);
  Tensor work = m.front.contiguous();
  if (accumulate) {
    const int64_t inner = c10::multiply_integers(rest);
    launch::launch_fold_sorted(work.view({1, merged[0], inner}), m.positions.reshape(-1),
                               vals.contiguous().view({1, count, inner}), launch::Fold::kSum);
  } else {
    std::vector<int64_t> position_shape(flat_shape.size(), 1);
    position_shape[0] = count;
    work.view(merged).scatter_(0, m.positions.reshape(position_shape).expand(flat_shape), vals);
  }
  if (!work.is_same(m.front)) m.front.copy_(work);
  return self;
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
  m.impl("embedding_sparse_backward", embedding_sparse_backward);
  m.impl("index.Tensor", index);
  m.impl("index.Tensor_out", index_out);
  m.impl("_index_put_impl_", index_put_impl_);
  m.impl("embedding_renorm_", embedding_renorm_);
  m.impl("_embedding_bag", embedding_bag);
  m.impl("_embedding_bag_forward_only", embedding_bag);
  m.impl("_embedding_bag_backward", embedding_bag_backward);
  m.impl("_embedding_bag_dense_backward", embedding_bag_dense_backward);
  m.impl("_embedding_bag_per_sample_weights_backward", embedding_bag_per_sample_weights_backward);
  m.impl("masked_scatter_", masked_scatter_);
  m.impl("masked_select", masked_select);
  m.impl("masked_select.out", masked_select_out);
  m.impl("nonzero", nonzero);
  m.impl("nonzero.out", nonzero_out);
  m.impl("nonzero_static", nonzero_static);
  m.impl("repeat_interleave.Tensor", repeat_interleave);
  m.impl("tril.out", tril_out);
  m.impl("triu.out", triu_out);
  m.impl("tril_", tril_);
  m.impl("triu_", triu_);
}

}  // namespace foo_cl::aten
