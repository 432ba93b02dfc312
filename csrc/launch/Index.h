// The indexing launchers (kernels_cl/index/): index_select, the dense embedding backward, the
// compaction behind masked_select and nonzero, gather and scatter along one dim, and folding values
// into rows of a tensor in a fixed order, the deterministic alternative to atomic scatters.
// Positions are int64 unless said otherwise and checked by the caller.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

namespace foo_cl::launch {

enum class Fold { kSum, kProd, kAmax, kAmin, kLast };

// Whether atomic scatters can fold values of out's dtype on its device: 64-bit values need
// cl_khr_int64_base_atomics; without it launch_fold_sorted does the job.
bool has_atomics_for(const at::Tensor& out);

// out (contiguous [outer, size, inner]) row keys[i] folds in values[:, i, :] (contiguous
// [outer, m, inner], out's dtype), in increasing i: kSum, kProd, kAmax and kAmin combine them with
// what the row holds (accumulating 16-bit floats in float32, rounded once), kLast writes the last
// one. Keys are int64 in [0, size), or negative for a bad position (launch_positions), left out.
void launch_fold_sorted(const at::Tensor& out, const at::Tensor& keys, const at::Tensor& values, Fold fold);

// out (any layout; self's sizes with index's length at dim) = self (contiguous) at the positions of
// index (contiguous, int32 or int64, at most 1-d) along dim.
void launch_index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& out);

// What nn.EmbeddingBag's sum and mean gradients need besides an embedding's (all contiguous, of the
// indices' dtype but per_sample_weights): each index's bag, the bags' sizes.
struct Bags {
  at::Tensor offset2bag;
  at::Tensor bag_size;
  std::optional<at::Tensor> per_sample_weights;  // 1-d, any stride, grad's dtype
  bool mean = false;
};

// out (contiguous [num_weights, dim]) = the dense gradient of an embedding: row w sums the rows of
// grad ([..., dim], any layout) whose index is w, divided by their number with scale_grad_by_freq;
// row padding_idx is zero. indices (any integer dtype) are sorted first, so the sums are deterministic.
// With `bags`, grad is [bags, dim] and index i takes row offset2bag[i], times its per-sample weight,
// or divided by its bag's size when mean.
void launch_embedding_backward(const at::Tensor& grad, const at::Tensor& indices, int64_t padding_idx,
                               bool scale_grad_by_freq, const at::Tensor& out, const Bags* bags = nullptr);

// nn.EmbeddingBag's forward (shapes and dtypes checked by the caller): out [bags, dim] (contiguous)
// folds, for each bag, the rows of weight (2-d, any layout) named by indices[offsets[b], end) except
// padding_idx, end = offsets[b + 1] (the number of indices for the last bag), by `mode`: 0 sums
// (times the per-sample weights when given), 1 averages, 2 takes the maximum, its rows going to
// max_indices [bags, dim]. offset2bag ([indices]) gets each position's bag and bag_size ([bags]) how
// many rows each folded. indices, offsets and the index outputs are contiguous and of one dtype,
// int32 or int64. Bad indices and offsets are reported to the device's error word, as CPU's checks.
void launch_embedding_bag(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                          const std::optional<at::Tensor>& per_sample_weights, int64_t mode, int64_t padding_idx,
                          const at::Tensor& out, const at::Tensor& offset2bag,
                          const at::Tensor& bag_size, const at::Tensor& max_indices);

// out (any layout, 1-d) = the elements of values (contiguous) where selected (contiguous bool of
// values' shape) is true, in order; positions (int64) is selected's inclusive running count.
void launch_masked_select(const at::Tensor& values, const at::Tensor& selected, const at::Tensor& positions,
                          const at::Tensor& out);

// out (any layout, int64 [count, selected.dim()]) = the coordinates of the true elements of selected
// (contiguous bool, at most kMaxDims dims), in order; positions as for launch_masked_select.
void launch_nonzero(const at::Tensor& selected, const at::Tensor& positions, const at::Tensor& out);

// index (int64, any layout) as positions in [0, size), contiguous: with `wrap` a negative one counts
// from the end; with `base` (contiguous, index's shape) base * size is added, merging one more indexed
// dim into base's positions. A position outside [-size, size) (with `wrap`; else [0, size)) reports
// an error to the device's error word (runtime/DeviceErrors), without a wait for the device, and
// becomes 0, in bounds for reads; `for_writes` makes it -1 instead (and any position merged with a
// -1), which the scatters and launch_fold_sorted leave out.
at::Tensor launch_positions(const at::Tensor& index, int64_t size, bool wrap, bool for_writes,
                            const at::Tensor& base = {});

// out (index's shape) = self at index's positions along dim, at out's own coordinates along the others.
// Here and in the scatters below, a position outside [0, size) along dim is reported to the device's
// error word and left out (gather writes 0 there).
void launch_gather(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index);

// out at index's positions along dim takes src at the same place (src at least index's shape, out's
// dtype): kLast writes, a repeated position keeping any one value; the other folds combine the
// value with what is there atomically (repeated positions in any order; 64-bit values need
// has_atomics_for).
void launch_scatter(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& src, Fold fold);

// out at index's positions along dim = value.
void launch_scatter_value(const at::Tensor& out, int64_t dim, const at::Tensor& index, const c10::Scalar& value);

// As launch_scatter, but folding in the index's order (through launch_fold_sorted): deterministic,
// and without atomics.
void launch_scatter_sorted(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                           Fold fold);

}  // namespace foo_cl::launch
