// The GEMM launcher: out[b] = alpha * a[b] @ b[b] + beta * d[b] over 3-D (batch, rows, cols) views
// with any strides (transposes and broadcast batches are strides, not copies), kernels and tiles
// from the tuner, float accumulation for half and bfloat16.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace foo_cl::runtime {
struct DeviceInfo;
}

namespace foo_cl::launch {

// How launch_gemm chooses its kernels on a device, for `python -m foo_cl`.
std::string gemm_tiles_summary(const runtime::DeviceInfo& info);

// The candidates the tuner times for products whose B has contiguous rows (`nn`) or whose A and B
// are contiguous along K; the first is the default.
std::vector<std::string> gemm_candidate_list(const runtime::DeviceInfo& info, bool nn);

// `d` may be undefined (then beta is ignored); beta == 0 ignores d's values, NaN included.
void launch_gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& d,
                 const c10::Scalar& alpha, const c10::Scalar& beta);

}  // namespace foo_cl::launch
