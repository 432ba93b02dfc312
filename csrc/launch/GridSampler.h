// The grid sampling launchers (kernels_cl/grid_sampler/grid_sampler.cl): F.grid_sample's forward and
// backward for contiguous input [n, c, (d,) h, w] and grid [n, (out_d,) out_h, out_w, 2 or 3], in
// the interpolation and padding modes of ATen/native/GridSamplerUtils.h (bilinear, nearest, and in
// 2-d bicubic; zeros, border, reflection). Results may have any layout (written densely, then
// copied in).
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

void launch_grid_sampler(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation, int64_t padding,
                         bool align_corners, const at::Tensor& out);

// grad_grid, and grad_input if defined (added atomically: see has_atomics_for).
void launch_grid_sampler_backward(const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& grid,
                                  int64_t interpolation, int64_t padding, bool align_corners,
                                  const at::Tensor& grad_input, const at::Tensor& grad_grid);

}  // namespace foo_cl::launch
