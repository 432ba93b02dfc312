// Upsampling launches: one work-item per output, or, for the nearest modes' backward, per input.
#include "launch/Upsample.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>

#include "upsample/upsample_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_upsample_shape) == 6 * sizeof(int64_t), "foo_upsample_shape: 6 int64 fields, no padding");

// The output-to-input scale along one dim, computed in `type` as CPU does (float for the nearest
// modes, 16-bit and float32 ones; double for float64).
c10::Scalar source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                         c10::ScalarType type) {
  auto in_type = [type](double v) { return type == at::kDouble ? v : static_cast<double>(static_cast<float>(v)); };
  if (align_corners) return out > 1 ? in_type(static_cast<double>(in - 1)) / in_type(static_cast<double>(out - 1)) : 0.;
  if (scale && *scale > 0) return in_type(1.0 / *scale);
  return type == at::kDouble ? static_cast<double>(in) / static_cast<double>(out)
                             : static_cast<double>(static_cast<float>(in) / static_cast<float>(out));
}

// Size `d` (0: depth, 1: height, 2: width) of the volumes a `dims`-d resize sees in `t`.
int64_t volume_size(const at::Tensor& t, int64_t dims, int64_t d) {
  return d < 3 - dims ? 1 : t.size(t.dim() - 3 + d);
}

// Runs `name` from `source` into `result` over `n` work-items; `input` and `output` have the
// resize's input and output shapes.
void upsample(const char* name, UpsampleMode mode, int64_t dims, const at::Tensor& source, const at::Tensor& result,
              const at::Tensor& input, const at::Tensor& output, bool align_corners, const UpsampleScales& scales,
              int64_t n, bool zero_first) {
  if (result.numel() == 0) return;
  const c10::DeviceGuard guard(source.device());
  const at::Tensor dense = dense_output(result);
  if (zero_first) dense.zero_();
  std::string options = dtype_option("DT", source.scalar_type()) + index_option(n) + "-DDIMS=" + std::to_string(dims) +
                        " -DMODE=" + std::to_string(static_cast<int>(mode)) + " ";
  if (align_corners) options += "-DALIGN_CORNERS ";
  const c10::ScalarType scale_type =
      !is_nearest(mode) && source.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  std::array<int64_t, 3> in{}, out{};
  for (int64_t d = 0; d < 3; ++d) {
    in[d] = volume_size(input, dims, d);
    out[d] = volume_size(output, dims, d);
  }
  KernelCall call(source.device().index(), "upsample/upsample", name, options);
  call.buffer(source.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(foo_upsample_shape{in[0], in[1], in[2], out[0], out[1], out[2]});
  for (int64_t d = 0; d < 3; ++d) {
    call.scalar(source_scale(in[d], out[d], align_corners, scales[d], scale_type), scale_type);
  }
  call.count(n).launch(n);
  copy_back(dense, result);
}

}  // namespace

void launch_upsample(UpsampleMode mode, int64_t dims, const at::Tensor& input, const at::Tensor& out,
                     bool align_corners, const UpsampleScales& scales) {
  upsample("upsample_forward", mode, dims, input, out, input, out, align_corners, scales, out.numel(), false);
}

void launch_upsample_backward(UpsampleMode mode, int64_t dims, const at::Tensor& grad, const at::Tensor& grad_input,
                              bool align_corners, const UpsampleScales& scales) {
  // The nearest modes gather per input; the others scatter per output into zeros.
  const bool nearest = is_nearest(mode);
  upsample("upsample_backward", mode, dims, grad, grad_input, grad_input, grad, align_corners, scales,
           nearest ? grad_input.numel() : grad.numel(), !nearest);
}

}  // namespace foo_cl::launch
