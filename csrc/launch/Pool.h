// The pooling launchers (kernels_cl/pool/) over the last `dims` (2 or 3) dims of tensors
// [..., (depth,) height, width]: max pooling with the positions of the maxima, average pooling,
// adaptive average and max pooling, and their backwards. Inputs are contiguous; outputs may have
// any layout (written densely, then copied in).
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace foo_cl::launch {

// A pooling window: size, stride, padding and dilation along depth, height and width (the
// window of a 2-d pooling has depth 1, stride 1, padding 0 and dilation 1 along depth).
struct PoolWindow {
  int64_t dims;  // 2 or 3
  int64_t kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
};

// values and positions (int64, (z * height + y) * width + x within the volume) of each window's
// maximum.
void launch_max_pool(const at::Tensor& input, const PoolWindow& window, const at::Tensor& values,
                     const at::Tensor& positions);

// grad_input (the input's shape) from the output gradient and the positions of the maxima.
void launch_max_pool_backward(const at::Tensor& grad, const at::Tensor& positions, const PoolWindow& window,
                              const at::Tensor& grad_input);

void launch_avg_pool(const at::Tensor& input, const PoolWindow& window, bool count_include_pad,
                     std::optional<int64_t> divisor_override, const at::Tensor& out);
void launch_avg_pool_backward(const at::Tensor& grad, const PoolWindow& window, bool count_include_pad,
                              std::optional<int64_t> divisor_override, const at::Tensor& grad_input);

// Adaptive pooling over the last `dims` dims.
void launch_adaptive_avg_pool(int64_t dims, const at::Tensor& input, const at::Tensor& out);
void launch_adaptive_avg_pool_backward(int64_t dims, const at::Tensor& grad, const at::Tensor& grad_input);
void launch_adaptive_max_pool(int64_t dims, const at::Tensor& input, const at::Tensor& out, const at::Tensor& indices);
void launch_adaptive_max_pool_backward(int64_t dims, const at::Tensor& grad, const at::Tensor& indices,
                                       const at::Tensor& grad_input);

}  // namespace foo_cl::launch
