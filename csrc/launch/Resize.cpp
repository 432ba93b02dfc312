// Resize launches: one work-item per output, or per gradient element for bilinear backward.
#include "launch/Resize.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>

#include "resize/resize_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_resize_shape) == 4 * sizeof(int64_t), "foo_resize_shape: 4 int64 fields, no padding");

// The output-to-input scale along one dim, computed in `type` as CPU does (float for nearest and
// 16-bit/float32 bilinear, double for float64 bilinear).
c10::Scalar source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                         c10::ScalarType type) {
  auto in_type = [type](double v) { return type == at::kDouble ? v : static_cast<double>(static_cast<float>(v)); };
  if (align_corners) return out > 1 ? in_type(static_cast<double>(in - 1)) / in_type(static_cast<double>(out - 1)) : 0.;
  if (scale && *scale > 0) return in_type(1.0 / *scale);
  return type == at::kDouble ? static_cast<double>(in) / static_cast<double>(out)
                             : static_cast<double>(static_cast<float>(in) / static_cast<float>(out));
}

// Runs `name` from `source` into `result` over `n` work-items; `input` and `output` have the
// resize's input and output shapes.
void resize(const char* name, bool bilinear, const at::Tensor& source, const at::Tensor& result, const at::Tensor& input,
            const at::Tensor& output, bool align_corners, std::optional<double> scale_h, std::optional<double> scale_w,
            int64_t n, bool zero_first) {
  if (result.numel() == 0) return;
  const c10::DeviceGuard guard(source.device());
  const at::Tensor dense = dense_output(result);
  if (zero_first) dense.zero_();
  std::string options = dtype_option("DT", source.scalar_type()) + index_option(n);
  if (align_corners) options += "-DALIGN_CORNERS ";
  const c10::ScalarType scale_type = bilinear && source.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const foo_resize_shape shape{input.size(-2), input.size(-1), output.size(-2), output.size(-1)};
  KernelCall(source.device().index(), "resize/upsample2d", name, options)
      .buffer(source.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(shape)
      .scalar(source_scale(shape.in_h, shape.out_h, align_corners, scale_h, scale_type), scale_type)
      .scalar(source_scale(shape.in_w, shape.out_w, align_corners, scale_w, scale_type), scale_type)
      .count(n)
      .launch(n);
  copy_back(dense, result);
}

}  // namespace

void launch_resize(Resize mode, const at::Tensor& input, const at::Tensor& out, bool align_corners,
                   std::optional<double> scale_h, std::optional<double> scale_w) {
  const bool bilinear = mode == Resize::kBilinear;
  resize(bilinear ? "bilinear_forward" : "nearest_forward", bilinear, input, out, input, out, align_corners, scale_h,
         scale_w, out.numel(), false);
}

void launch_resize_backward(Resize mode, const at::Tensor& grad, const at::Tensor& grad_input, bool align_corners,
                            std::optional<double> scale_h, std::optional<double> scale_w) {
  if (mode == Resize::kBilinear) {
    resize("bilinear_backward", true, grad, grad_input, grad_input, grad, align_corners, scale_h, scale_w, grad.numel(),
           true);
  } else {
    resize("nearest_backward", false, grad, grad_input, grad_input, grad, align_corners, scale_h, scale_w,
           grad_input.numel(), false);
  }
}

}  // namespace foo_cl::launch
