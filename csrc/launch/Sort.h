// The sort launcher: a stable bitonic sort of every row of a [rows, n] tensor (kernels_cl/sort/),
// keeping each row's first m values and their positions; sort, topk, randperm and multinomial
// build on it.
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

// `keys` is contiguous [rows, n]; `values` (keys' dtype) and `positions` (int64) are contiguous
// [rows, m] with m <= n. NaN sorts above every number; ties keep their original order.
void launch_sort_rows(const at::Tensor& keys, const at::Tensor& values, const at::Tensor& positions, bool descending);

}  // namespace foo_cl::launch
