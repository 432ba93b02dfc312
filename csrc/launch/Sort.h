// The sort launchers (kernels_cl/sort/): a stable bitonic sort of every row of a [rows, n] tensor,
// keeping each row's first m values and their positions (sort, topk, randperm and multinomial build
// on it), and binary searches in sorted rows.
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

// `keys` is contiguous [rows, n]; `values` (keys' dtype) and `positions` (int64) are contiguous
// [rows, m] with m <= n. NaN sorts above every number; ties keep their original order.
void launch_sort_rows(const at::Tensor& keys, const at::Tensor& values, const at::Tensor& positions, bool descending);

// out[..., i] (int32 or int64): the position of input[..., i] in its row of `sorted` (the first
// position whose value is not below it, or above it with `right`); one row of `sorted` serves
// every input row when it is 1-d. Inputs are contiguous; out may have any layout.
void launch_searchsorted(const at::Tensor& sorted, const at::Tensor& input, bool right, const at::Tensor& out);

}  // namespace foo_cl::launch
