// Nearest (1-d and 2-d), linear (1-d) and bilinear (2-d) upsampling (F.interpolate), forward and backward
// (launch/Resize), with PyTorch's structured meta functions for checks and shapes.
#include "aten/Structured.h"
#include "launch/Index.h"
#include "launch/Resize.h"

#include <ATen/Context.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_meta.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalScale = std::optional<double>;

void nearest_forward(at::meta::structured_upsample_nearest2d& op, const Tensor& self, c10::IntArrayRef,
                     OptionalScale scale_h, OptionalScale scale_w) {
  launch::launch_resize(launch::Resize::kNearest, self.contiguous(), op.maybe_get_output(0), false, scale_h, scale_w);
}

void bilinear_forward(at::meta::structured_upsample_bilinear2d& op, const Tensor& self, c10::IntArrayRef,
                      bool align_corners, OptionalScale scale_h, OptionalScale scale_w) {
  launch::launch_resize(launch::Resize::kBilinear, self.contiguous(), op.maybe_get_output(0), align_corners, scale_h,
                        scale_w);
}

void nearest_backward(at::meta::structured_upsample_nearest2d_backward& op, const Tensor& grad_output,
                      c10::IntArrayRef, c10::IntArrayRef, OptionalScale scale_h, OptionalScale scale_w) {
  launch::launch_resize_backward(launch::Resize::kNearest, grad_output.contiguous(), op.maybe_get_output(0), false,
                                 scale_h, scale_w);
}

// As CUDA's: the gradients of overlapping taps add atomically.
void check_interpolation_backward(const Tensor& grad_input) {
  at::globalContext().alertNotDeterministic("upsample_bilinear2d_backward_out_foo");
  TORCH_CHECK(launch::has_atomics_for(grad_input), "foo-cl: bilinear upsampling backward in ", grad_input.scalar_type(),
              " needs the OpenCL extension cl_khr_int64_base_atomics, which ", grad_input.device(),
              " does not have; use float32");
}

void bilinear_backward(at::meta::structured_upsample_bilinear2d_backward& op, const Tensor& grad_output,
                       c10::IntArrayRef, c10::IntArrayRef, bool align_corners, OptionalScale scale_h,
                       OptionalScale scale_w) {
  const Tensor& grad_input = op.maybe_get_output(0);
  check_interpolation_backward(grad_input);
  launch::launch_resize_backward(launch::Resize::kBilinear, grad_output.contiguous(), grad_input, align_corners,
                                 scale_h, scale_w);
}

// 1-d nearest upsampling runs as 2-d over planes with a height of 1.
void nearest1d_forward(at::meta::structured_upsample_nearest1d& op, const Tensor& self, c10::IntArrayRef,
                       OptionalScale scale) {
  launch::launch_resize(launch::Resize::kNearest, self.contiguous().unsqueeze(-2), op.maybe_get_output(0).unsqueeze(-2),
                        false, std::nullopt, scale);
}

void nearest1d_backward(at::meta::structured_upsample_nearest1d_backward& op, const Tensor& grad_output,
                        c10::IntArrayRef, c10::IntArrayRef, OptionalScale scale) {
  launch::launch_resize_backward(launch::Resize::kNearest, grad_output.contiguous().unsqueeze(-2),
                                 op.maybe_get_output(0).unsqueeze(-2), false, std::nullopt, scale);
}

// 1-d linear interpolation runs as bilinear over planes with a height of 1.
void linear1d_forward(at::meta::structured_upsample_linear1d& op, const Tensor& self, c10::IntArrayRef,
                      bool align_corners, OptionalScale scale) {
  launch::launch_resize(launch::Resize::kBilinear, self.contiguous().unsqueeze(-2), op.maybe_get_output(0).unsqueeze(-2),
                        align_corners, std::nullopt, scale);
}

void linear1d_backward(at::meta::structured_upsample_linear1d_backward& op, const Tensor& grad_output,
                       c10::IntArrayRef, c10::IntArrayRef, bool align_corners, OptionalScale scale) {
  const Tensor& grad_input = op.maybe_get_output(0);
  check_interpolation_backward(grad_input);
  launch::launch_resize_backward(launch::Resize::kBilinear, grad_output.contiguous().unsqueeze(-2),
                                 grad_input.unsqueeze(-2), align_corners, std::nullopt, scale);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured_with_self<at::meta::structured_upsample_linear1d, c10::IntArrayRef, bool, OptionalScale>(
      m, "upsample_linear1d", nullptr, "upsample_linear1d.out", linear1d_forward);
  register_structured_with_self<at::meta::structured_upsample_linear1d_backward, c10::IntArrayRef, c10::IntArrayRef,
                                bool, OptionalScale>(m, "upsample_linear1d_backward", nullptr,
                                                     "upsample_linear1d_backward.grad_input", linear1d_backward);
  register_structured_with_self<at::meta::structured_upsample_nearest1d, c10::IntArrayRef, OptionalScale>(
      m, "upsample_nearest1d", nullptr, "upsample_nearest1d.out", nearest1d_forward);
  register_structured_with_self<at::meta::structured_upsample_nearest1d_backward, c10::IntArrayRef, c10::IntArrayRef,
                                OptionalScale>(m, "upsample_nearest1d_backward", nullptr,
                                               "upsample_nearest1d_backward.grad_input", nearest1d_backward);
  register_structured_with_self<at::meta::structured_upsample_nearest2d, c10::IntArrayRef, OptionalScale,
                                OptionalScale>(m, "upsample_nearest2d", nullptr, "upsample_nearest2d.out",
                                               nearest_forward);
  register_structured_with_self<at::meta::structured_upsample_bilinear2d, c10::IntArrayRef, bool, OptionalScale,
                                OptionalScale>(m, "upsample_bilinear2d", nullptr, "upsample_bilinear2d.out",
                                               bilinear_forward);
  register_structured_with_self<at::meta::structured_upsample_nearest2d_backward, c10::IntArrayRef, c10::IntArrayRef,
                                OptionalScale, OptionalScale>(m, "upsample_nearest2d_backward", nullptr,
                                                              "upsample_nearest2d_backward.grad_input",
                                                              nearest_backward);
  register_structured_with_self<at::meta::structured_upsample_bilinear2d_backward, c10::IntArrayRef,
                                c10::IntArrayRef, bool, OptionalScale, OptionalScale>(
      m, "upsample_bilinear2d_backward", nullptr, "upsample_bilinear2d_backward.grad_input", bilinear_backward);
}

}  // namespace foo_cl::aten
