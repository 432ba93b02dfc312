// The reduction launcher: folds the elements of `self` over a set of dims into `out` (and an int64
// index output) with a kernels_cl/reduce/<op>.cl program, for any strides and dtypes, in one pass
// when there are enough outputs to fill the device and two (slices, then partials) otherwise.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include <vector>

namespace foo_cl::launch {

// The reductions of kernels_cl/reduce/, with the scalar parameters (s0, s1) those that take some read.
enum class Reduction {
  kSum,
  kMean,  // s0: 1 / the number of reduced elements
  kProd,
  kNansum,
  kAmax,
  kAmin,
  kArgmax,  // the index output only
  kArgmin,
  kMax,  // values and indices
  kMin,
  kAll,
  kAny,
  kCountNonzero,
  kNorm,  // s0: p, s1: 1 / p
  kNorm0,
  kNorm1,
  kNorm2,
  kNormInf,
  kNormNegInf,
  kVar,  // s0: the correction
  kStd,
};

struct ReduceOp {
  Reduction reduction;
  c10::ScalarType compute;               // the compute type `ct` (elements are converted to it)
  std::vector<c10::Scalar> params = {};  // s0, s1
};

// `dims` are the reduced dims of self (wrapped, unique; empty means all). `out` (and `indices`,
// when defined) have self's shape with the reduced dims removed, or kept as size 1 (`keepdim`).
void launch_reduce(const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, c10::IntArrayRef dims,
                   bool keepdim, const ReduceOp& op);

// The column kernel's tuning candidates ("W=128 V=16 R=256": W outputs per work-item, V at a time,
// over slices of R reduced elements) for `columns` outputs along the contiguous kept dim, the
// default first; ops without vector forms (not `vector_safe`) take scalars.
std::vector<std::string> column_candidates(c10::DeviceIndex device, int64_t columns, bool vector_safe);

}  // namespace foo_cl::launch
