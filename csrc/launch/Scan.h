// The scan launcher (kernels_cl/scan/scan.cl): cumulative sums, products, log-sum-exps, maxima and
// minima along one dim, a work-item per row (or per slice of a long row) of the contiguous
// [outer, dim, inner] view; half and bfloat16 compute in float. Results may have any layout
// (written densely, then copied in).
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

enum class Scan { kCumsum, kCumprod, kLogcumsumexp, kCummax, kCummin };

// Scans `self` into `out` (self is read in out's dtype); kCummax and kCummin also write the
// positions of the running extrema to `indices` (int64). Raises on a device whose driver ends a
// work-item's loops before the end of its slice.
void launch_scan(Scan scan, const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, int64_t dim);

}  // namespace foo_cl::launch
