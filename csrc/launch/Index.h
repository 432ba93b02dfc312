// Launches of kernels_cl/index/ that the indexing ops share: folding values into rows of a tensor
// in a fixed order, the deterministic alternative to atomic scatters.
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

enum class Fold { kSum, kProd, kAmax, kAmin, kLast };

// Whether atomic scatters can fold values of out's dtype on its device: 64-bit values need
// cl_khr_int64_base_atomics; without it launch_fold_sorted does the job.
bool has_atomics_for(const at::Tensor& out);

// out (contiguous [outer, size, inner]) row keys[i] folds in values[:, i, :] (contiguous
// [outer, m, inner], out's dtype), in increasing i: kSum, kProd, kAmax and kAmin combine them with
// what the row holds (accumulating 16-bit floats in float32, rounded once), kLast writes the last
// one. Keys are int64 in [0, size).
void launch_fold_sorted(const at::Tensor& out, const at::Tensor& keys, const at::Tensor& values, Fold fold);

}  // namespace foo_cl::launch
