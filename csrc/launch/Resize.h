// The 2-d resize launchers (kernels_cl/resize/upsample2d.cl) over planes [..., height, width]:
// nearest and bilinear upsampling and their backwards, with CPU's source-index rules (an explicit
// scale factor s maps output to input by 1 / s, else by in / out; with align_corners by
// (in - 1) / (out - 1)). Sources are contiguous; results may have any layout (written densely, then
// copied in). A 1-d resize is a 2-d one of planes with a height of 1.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace foo_cl::launch {

enum class Resize { kNearest, kBilinear };

void launch_resize(Resize mode, const at::Tensor& input, const at::Tensor& out, bool align_corners,
                   std::optional<double> scale_h, std::optional<double> scale_w);

// Bilinear backward adds each output's gradient to its four inputs atomically (see has_atomics_for).
void launch_resize_backward(Resize mode, const at::Tensor& grad, const at::Tensor& grad_input, bool align_corners,
                            std::optional<double> scale_h, std::optional<double> scale_w);

}  // namespace foo_cl::launch
