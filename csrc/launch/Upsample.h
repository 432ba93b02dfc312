// The upsampling launchers (kernels_cl/upsample/upsample.cl): F.interpolate's modes over the last `dims`
// (1, 2 or 3) dims of tensors [..., (depth, (height,)) width], forward and backward, with CPU's
// source-index rules (an explicit scale factor s maps output to input by 1 / s, else by in / out;
// with align_corners by (in - 1) / (out - 1)). Sources are contiguous; results may have any layout
// (written densely, then copied in).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <optional>

namespace foo_cl::launch {

// nearest, nearest-exact, (bi/tri)linear, bicubic, and antialiased bilinear and bicubic (in the
// order of the kernel's MODE_* values).
enum class UpsampleMode { kNearest, kNearestExact, kLinear, kCubic, kLinearAntialiased, kCubicAntialiased };

constexpr bool is_nearest(UpsampleMode mode) {
  return mode == UpsampleMode::kNearest || mode == UpsampleMode::kNearestExact;
}

// Scale factors of the resized dims, last dim last (depth, height, width for 3-d).
using UpsampleScales = std::array<std::optional<double>, 3>;

void launch_upsample(UpsampleMode mode, int64_t dims, const at::Tensor& input, const at::Tensor& out,
                     bool align_corners, const UpsampleScales& scales);

// The modes other than the nearest ones add each output's gradient to its inputs atomically (see
// has_atomics_for).
void launch_upsample_backward(UpsampleMode mode, int64_t dims, const at::Tensor& grad, const at::Tensor& grad_input,
                              bool align_corners, const UpsampleScales& scales);

}  // namespace foo_cl::launch
