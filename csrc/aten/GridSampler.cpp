// F.grid_sample in 2-d on foo (launch/GridSample), forward and backward, with CPU's checks
// (ATen/native/GridSamplerUtils.h) and modes: bilinear, nearest and bicubic interpolation, zeros,
// border and reflection padding, align_corners.
#include "launch/GridSample.h"
#include "launch/Index.h"

#include <ATen/Context.h>
#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

void check_grid_sample(const Tensor& input, const Tensor& grid) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(),
              "grid_sampler(): expected input and grid to have the same dtype, but input has ", input.scalar_type(),
              " and grid has ", grid.scalar_type());
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "grid_sampler(): expected a floating-point input, got ",
              input.scalar_type());
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation, int64_t padding,
                       bool align_corners) {
  check_grid_sample(input, grid);
  const c10::DeviceGuard guard(input.device());
  Tensor out = at::empty({input.size(0), input.size(1), grid.size(1), grid.size(2)}, input.options());
  launch::launch_grid_sample(input.contiguous(), grid.contiguous(), interpolation, padding, align_corners, out);
  return out;
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation, int64_t padding, bool align_corners,
                                                    std::array<bool, 2> output_mask) {
  check_grid_sample(input, grid);
  const c10::DeviceGuard guard(input.device());
  Tensor grad_input;
  if (output_mask[0]) {
    // As CUDA's: the gradients of overlapping taps add atomically.
    at::globalContext().alertNotDeterministic("grid_sampler_2d_backward_foo");
    grad_input = at::empty(input.sizes(), input.options());
    TORCH_CHECK(launch::has_atomics_for(grad_input), "foo-cl: grid_sampler_2d_backward in ", input.scalar_type(),
                " needs the OpenCL extension cl_khr_int64_base_atomics, which ", input.device(),
                " does not have; use float32");
  }
  Tensor grad_grid = at::empty(grid.sizes(), grid.options());
  launch::launch_grid_sample_backward(grad_output.contiguous(), input.contiguous(), grid.contiguous(), interpolation,
                                      padding, align_corners, grad_input, grad_grid);
  return {grad_input, grad_grid};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("grid_sampler_2d", grid_sampler_2d);
  m.impl("grid_sampler_2d_backward", grid_sampler_2d_backward);
}

}  // namespace foo_cl::aten
