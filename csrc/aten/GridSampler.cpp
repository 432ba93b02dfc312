// F.grid_sample in 2-d and 3-d on foo (launch/GridSampler), forward and backward, with CPU's checks
// (ATen/native/GridSamplerUtils.h) and modes: bilinear (trilinear in 3-d), nearest and, in 2-d,
// bicubic interpolation; zeros, border and reflection padding; align_corners.
#include "aten/Atomics.h"
#include "launch/GridSampler.h"

#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

void check_grid_sample(const Tensor& input, const Tensor& grid, int64_t interpolation, int64_t dims) {
  at::native::check_grid_sampler_common(input, grid);
  if (dims == 3) {
    at::native::check_grid_sampler_3d(input, grid, interpolation);
  } else {
    at::native::check_grid_sampler_2d(input, grid);
  }
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(),
              "grid_sampler(): expected input and grid to have the same dtype, but input has ", input.scalar_type(),
              " and grid has ", grid.scalar_type());
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "grid_sampler(): expected a floating-point input, got ",
              input.scalar_type());
}

// input [N, C, (D,) H, W] sampled at grid [N, (D_out,) H_out, W_out, Dims].
template <int64_t Dims>
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation, int64_t padding,
                    bool align_corners) {
  check_grid_sample(input, grid, interpolation, Dims);
  const c10::DeviceGuard guard(input.device());
  std::vector<int64_t> shape{input.size(0), input.size(1)};
  shape.insert(shape.end(), grid.sizes().begin() + 1, grid.sizes().end() - 1);
  Tensor out = at::empty(shape, input.options());
  launch::launch_grid_sampler(input.contiguous(), grid.contiguous(), interpolation, padding, align_corners, out);
  return out;
}

template <int64_t Dims>
std::tuple<Tensor, Tensor> grid_sampler_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                 int64_t interpolation, int64_t padding, bool align_corners,
                                                 std::array<bool, 2> output_mask) {
  check_grid_sample(input, grid, interpolation, Dims);
  const c10::DeviceGuard guard(input.device());
  Tensor grad_input;
  if (output_mask[0]) {
    // The gradients of overlapping taps add atomically.
    grad_input = at::empty(input.sizes(), input.options());
    check_atomic_accumulation(Dims == 2 ? "grid_sampler_2d_backward" : "grid_sampler_3d_backward", grad_input);
  }
  Tensor grad_grid = at::empty(grid.sizes(), grid.options());
  launch::launch_grid_sampler_backward(grad_output.contiguous(), input.contiguous(), grid.contiguous(), interpolation,
                                       padding, align_corners, grad_input, grad_grid);
  return {grad_input, grad_grid};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("grid_sampler_2d", grid_sampler<2>);
  m.impl("grid_sampler_2d_backward", grid_sampler_backward<2>);
  m.impl("grid_sampler_3d", grid_sampler<3>);
  m.impl("grid_sampler_3d_backward", grid_sampler_backward<3>);
}

}  // namespace foo_cl::aten
