// Grid sampling launches: one work-item per grid point, over every channel.
#include "launch/GridSampler.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>

#include "grid_sampler/grid_sampler_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_grid_sampler_shape) == 7 * sizeof(int64_t),
              "foo_grid_sampler_shape: 7 int64 fields, no padding");

// A 2-d sampling is a 3-d one of depth 1.
foo_grid_sampler_shape grid_shape(const at::Tensor& input, const at::Tensor& grid) {
  const bool three_d = input.dim() == 5;
  return {input.size(1),  three_d ? input.size(2) : 1, input.size(-2),
          input.size(-1), three_d ? grid.size(1) : 1,  grid.size(-3),
          grid.size(-2)};
}

std::string grid_options(const at::Tensor& input, int64_t n, int64_t interpolation, int64_t padding,
                         bool align_corners) {
  std::string options = dtype_option("DT", input.scalar_type()) + index_option(n) +
                        "-DDIMS=" + std::to_string(input.dim() - 2) + " -DMODE=" + std::to_string(interpolation) +
                        " -DPADDING=" + std::to_string(padding) + " ";
  if (align_corners) options += "-DALIGN_CORNERS ";
  return options;
}

}  // namespace

void launch_grid_sampler(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation, int64_t padding,
                         bool align_corners, const at::Tensor& out) {
  TORCH_INTERNAL_ASSERT(input.is_contiguous() && grid.is_contiguous());
  const int64_t n = grid.numel() / grid.size(-1);  // grid points
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(input.device());
  const at::Tensor result = dense_output(out);
  KernelCall(input.device().index(), "grid_sampler/grid_sampler", "grid_sample_forward",
             grid_options(input, n, interpolation, padding, align_corners))
      .buffer(input.const_data_ptr())
      .buffer(grid.const_data_ptr())
      .buffer(result.data_ptr())
      .value(grid_shape(input, grid))
      .count(n)
      .launch(n);
  copy_back(result, out);
}

void launch_grid_sampler_backward(const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& grid,
                                  int64_t interpolation, int64_t padding, bool align_corners,
                                  const at::Tensor& grad_input, const at::Tensor& grad_grid) {
  TORCH_INTERNAL_ASSERT(grad_output.is_contiguous() && input.is_contiguous() && grid.is_contiguous());
  const int64_t n = grid.numel() / grid.size(-1);
  const c10::DeviceGuard guard(input.device());
  const at::Tensor grads_in = grad_input.defined() ? dense_output(grad_input) : at::Tensor();
  const at::Tensor grads_grid = dense_output(grad_grid);
  if (grads_in.defined()) grads_in.zero_();
  if (n == 0 || input.numel() == 0) {
    grads_grid.zero_();
  } else {
    std::string options = grid_options(input, n, interpolation, padding, align_corners);
    if (grads_in.defined()) options += "-DGRAD_INPUT ";
    KernelCall(input.device().index(), "grid_sampler/grid_sampler", "grid_sample_backward", options)
        .buffer(grad_output.const_data_ptr())
        .buffer(input.const_data_ptr())
        .buffer(grid.const_data_ptr())
        .buffer(or_unused(grads_in, grads_grid))  // unused without GRAD_INPUT
        .buffer(grads_grid.data_ptr())
        .value(grid_shape(input, grid))
        .count(n)
        .launch(n);
  }
  if (grads_in.defined()) copy_back(grads_in, grad_input);
  copy_back(grads_grid, grad_grid);
}

}  // namespace foo_cl::launch
