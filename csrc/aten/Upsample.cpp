// Nearest (1-d and 2-d) and bilinear (2-d) upsampling (F.interpolate), forward and backward
// (kernels_cl/resize/upsample2d.cl), with PyTorch's structured meta functions for checks and
// shapes and CPU's scale rules.
#include "aten/Structured.h"
#include "launch/Index.h"
#include "launch/Launch.h"

#include <ATen/Context.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalScale = std::optional<double>;

// foo_resize_shape of the kernel.
struct ResizeShape {
  int64_t in_h, in_w, out_h, out_w;
};

// As CPU: an explicit scale factor s maps output to input by 1 / s, else by in / out; with
// align_corners, (in - 1) / (out - 1).
// Computed in `type` (float for nearest and 16-bit/float32 bilinear, double for float64 bilinear).
c10::Scalar source_scale(int64_t in, int64_t out, bool align_corners, OptionalScale scale, c10::ScalarType type) {
  auto in_type = [type](double v) { return type == at::kDouble ? v : static_cast<double>(static_cast<float>(v)); };
  if (align_corners) return out > 1 ? in_type(static_cast<double>(in - 1)) / in_type(static_cast<double>(out - 1)) : 0.;
  if (scale && *scale > 0) return in_type(1.0 / *scale);
  return type == at::kDouble ? static_cast<double>(in) / static_cast<double>(out)
                             : static_cast<double>(static_cast<float>(in) / static_cast<float>(out));
}

// Runs `name` from `source` (contiguous) into `result`, over `n` work elements.
void resize_launch(const char* name, const Tensor& source, const Tensor& result, const ResizeShape& shape,
                   bool align_corners, OptionalScale scale_h, OptionalScale scale_w, int64_t n, bool zero_first) {
  if (result.numel() == 0) return;
  const c10::DeviceGuard guard(source.device());
  const Tensor dense = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  if (zero_first) dense.zero_();
  std::string options = launch::dtype_option("DT", source.scalar_type()) + launch::index_option(n);
  if (align_corners) options += "-DALIGN_CORNERS ";
  const bool bilinear = std::string(name).rfind("bilinear", 0) == 0;
  const c10::ScalarType scale_type = bilinear && source.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  launch::KernelCall(source.device().index(), "resize/upsample2d", name, options)
      .buffer(source.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(shape)
      .scalar(source_scale(shape.in_h, shape.out_h, align_corners, scale_h, scale_type), scale_type)
      .scalar(source_scale(shape.in_w, shape.out_w, align_corners, scale_w, scale_type), scale_type)
      .count(n)
      .launch(n);
  if (!dense.is_same(result)) result.copy_(dense);
}

ResizeShape shape_of(const Tensor& input, const Tensor& output) {
  return {input.size(-2), input.size(-1), output.size(-2), output.size(-1)};
}

void nearest_forward(at::meta::structured_upsample_nearest2d& op, const Tensor& self, c10::IntArrayRef,
                     OptionalScale scale_h, OptionalScale scale_w) {
  const Tensor& out = op.maybe_get_output(0);
  resize_launch("nearest_forward", self.contiguous(), out, shape_of(self, out), false, scale_h, scale_w, out.numel(),
                false);
}

void bilinear_forward(at::meta::structured_upsample_bilinear2d& op, const Tensor& self, c10::IntArrayRef,
                      bool align_corners, OptionalScale scale_h, OptionalScale scale_w) {
  const Tensor& out = op.maybe_get_output(0);
  resize_launch("bilinear_forward", self.contiguous(), out, shape_of(self, out), align_corners, scale_h, scale_w,
                out.numel(), false);
}

void nearest_backward(at::meta::structured_upsample_nearest2d_backward& op, const Tensor& grad_output,
                      c10::IntArrayRef, c10::IntArrayRef, OptionalScale scale_h, OptionalScale scale_w) {
  const Tensor& grad_input = op.maybe_get_output(0);
  resize_launch("nearest_backward", grad_output.contiguous(), grad_input, shape_of(grad_input, grad_output), false,
                scale_h, scale_w, grad_input.numel(), false);
}

void bilinear_backward(at::meta::structured_upsample_bilinear2d_backward& op, const Tensor& grad_output,
                       c10::IntArrayRef, c10::IntArrayRef, bool align_corners, OptionalScale scale_h,
                       OptionalScale scale_w) {
  const Tensor& grad_input = op.maybe_get_output(0);
  // As CUDA's: the gradients of overlapping taps add atomically.
  at::globalContext().alertNotDeterministic("upsample_bilinear2d_backward_out_foo");
  TORCH_CHECK(launch::has_atomics_for(grad_input), "foo-cl: bilinear upsampling backward in ", grad_input.scalar_type(),
              " needs the OpenCL extension cl_khr_int64_base_atomics, which ", grad_input.device(),
              " does not have; use float32");
  resize_launch("bilinear_backward", grad_output.contiguous(), grad_input, shape_of(grad_input, grad_output),
                align_corners, scale_h, scale_w, grad_output.numel(), true);
}

// 1-d nearest upsampling runs as 2-d with a height of 1.
ResizeShape shape_1d(const Tensor& input, const Tensor& output) {
  return {1, input.size(-1), 1, output.size(-1)};
}

void nearest1d_forward(at::meta::structured_upsample_nearest1d& op, const Tensor& self, c10::IntArrayRef,
                       OptionalScale scale) {
  const Tensor& out = op.maybe_get_output(0);
  resize_launch("nearest_forward", self.contiguous(), out, shape_1d(self, out), false, std::nullopt, scale,
                out.numel(), false);
}

void nearest1d_backward(at::meta::structured_upsample_nearest1d_backward& op, const Tensor& grad_output,
                        c10::IntArrayRef, c10::IntArrayRef, OptionalScale scale) {
  const Tensor& grad_input = op.maybe_get_output(0);
  resize_launch("nearest_backward", grad_output.contiguous(), grad_input, shape_1d(grad_input, grad_output), false,
                std::nullopt, scale, grad_input.numel(), false);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
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
