// The reduction launcher: folds the elements of `self` over a set of dims into `out` (and an int64
// index output) with a kernels_cl/reduce/<op>.cl program, for any strides and dtypes, in one pass
// when there are enough outputs to fill the device and two (slices, then partials) otherwise.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace foo_cl::launch {

struct ReduceOp {
  std::string key;                   // kernels_cl program, e.g. "reduce/sum"
  c10::ScalarType compute;           // the compute type `ct` (elements are converted to it)
  std::string options = "";          // extra build options (variants such as -DMEAN)
  std::vector<c10::Scalar> params = {};  // s0, s1
};

// `dims` are the reduced dims of self (wrapped, unique; empty means all). `out` (and `indices`,
// when defined) have self's shape with the reduced dims removed, or kept as size 1 (`keepdim`).
void launch_reduce(const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, c10::IntArrayRef dims,
                   bool keepdim, const ReduceOp& op);

}  // namespace foo_cl::launch
