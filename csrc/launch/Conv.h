// The column-matrix launchers convolutions are built on (kernels_cl/conv/): im2col writes, for
// contiguous volumes [n, channels, depth, height, width], the matrices [n, channels * kd * kh * kw,
// out_d * out_h * out_w] whose product with the weights is the convolution; col2im sums such
// matrices back into volumes (the adjoint, for input gradients and transposed convolutions). 2-d
// convolutions are 3-d ones of depth 1 with a window of depth 1.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace foo_cl::launch {

// The window of taps, and the output positions it is applied at (out_d x out_h x out_w: set by the
// caller, since a transposed convolution's output padding makes them more than the volume alone
// implies).
struct ConvWindow {
  int64_t kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
  int64_t out_d = 0, out_h = 0, out_w = 0;
};

// Output positions along one dim: floor((size + 2 * pad - dilation * (k - 1) - 1) / stride) + 1.
int64_t conv_out_size(int64_t size, int64_t k, int64_t stride, int64_t pad, int64_t dilation);

void launch_im2col(const at::Tensor& volumes, const at::Tensor& cols, const ConvWindow& window);
// im2col's tuning candidates on a device, the default first: on CPU devices "planes VEC=16" where
// `same` (a work-item per tap's block of a plane: 2-d windows of unit stride and dilation whose
// output has the plane's size), else "rows VEC=8" (a work-item per column-matrix row segment,
// unit-stride segments VEC at a time; bare "rows": one at a time); elsewhere "elements" (a
// work-item per element).
std::vector<std::string> im2col_candidates(c10::DeviceIndex device, bool same);
void launch_col2im(const at::Tensor& cols, const at::Tensor& volumes, const ConvWindow& window);

// Depthwise convolutions (one input channel per group, `multiplier` output channels each) of
// contiguous volumes, directly (kernels_cl/conv/depthwise.cl); weights [out channels, 1, kd, kh, kw]
// contiguous, `out` / `grad_input` contiguous. The weight gradient is [out channels, kd * kh * kw] in
// float32 (float64 for float64 volumes).
void launch_depthwise(const at::Tensor& volumes, const at::Tensor& weight, const at::Tensor& bias,
                      const at::Tensor& out, const ConvWindow& window);
void launch_depthwise_input_grad(const at::Tensor& grad_output, const at::Tensor& weight, const at::Tensor& grad_input,
                                 const ConvWindow& window);
at::Tensor launch_depthwise_weight_grad(const at::Tensor& grad_output, const at::Tensor& volumes,
                                        const ConvWindow& window, int64_t out_channels);

}  // namespace foo_cl::launch
