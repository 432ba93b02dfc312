// im2col and col2im launches.
#include "launch/Conv.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/empty_like.h>
#include <c10/core/DeviceGuard.h>

#include <cstdint>
#include <string>
#include <vector>

#include "conv/conv_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_conv_shape) == 19 * sizeof(int64_t), "foo_conv_shape: 19 int64 fields, no padding");

foo_conv_shape conv_shape(const at::Tensor& volumes, const ConvWindow& w) {
  return {volumes.size(1),
          volumes.size(2),
          volumes.size(3),
          volumes.size(4),
          w.kd,
          w.kh,
          w.kw,
          w.sd,
          w.sh,
          w.sw,
          w.pd,
          w.ph,
          w.pw,
          w.dd,
          w.dh,
          w.dw,
          w.out_d,
          w.out_h,
          w.out_w};
}

// Column matrices from which im2col's launch shape is tuned (the small CNN's are 450K-600K elements).
constexpr int64_t kTunedMinIm2colElements = int64_t(1) << 17;

}  // namespace

int64_t conv_out_size(int64_t size, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return (size + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

std::vector<std::string> im2col_candidates(c10::DeviceIndex device) {
  if (!runtime::device_info(device).cpu_class) return {"elements", "rows"};
  return {"rows VEC=8", "rows VEC=16", "rows VEC=4", "rows"};
}

void launch_im2col(const at::Tensor& volumes, const at::Tensor& cols, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(volumes.dim() == 5 && volumes.is_contiguous() && cols.is_contiguous());
  if (cols.numel() == 0) return;
  const c10::DeviceGuard guard(volumes.device());
  const c10::DeviceIndex device = volumes.device().index();
  const foo_conv_shape shape = conv_shape(volumes, window);
  const int64_t rows = cols.numel() / shape.out_w;  // column-matrix row segments
  auto launch = [&](const tune::Candidate& candidate, const at::Tensor& out) {
    const bool elements = tune::is_variant(candidate, "elements");
    const int64_t n = elements ? cols.numel() : rows;
    std::string options = std::string("-DDT=") + bits_dtype_name(volumes.scalar_type()) + " " + index_option(n);
    if (const int vec = tune::param(candidate, "VEC")) options += " -DVEC=" + std::to_string(vec);
    KernelCall(device, "conv/im2col", elements ? "im2col_elements" : "im2col_contig", options)
        .buffer(volumes.const_data_ptr())
        .buffer(out.data_ptr())
        .value(shape)
        .count(n)
        .launch(n);
  };
  // Classes: the element size, the row segment's length and whether its inputs are contiguous,
  // and the size of the column matrices.
  const std::string shape_class =
      std::to_string(cols.element_size()) + "-byte " + tune::bucket("out_w", shape.out_w, 4, 1024) +
      (window.sw == 1 ? " unit" : " strided") + " " + tune::bucket("n", cols.numel(), 1 << 16, 1 << 26);
  const tune::Candidate candidate = tune::choose(device, "im2col", shape_class, im2col_candidates(device),
                                                 cols.numel() >= kTunedMinIm2colElements, [&](const auto& c) {
                                                   const at::Tensor out = at::empty_like(cols);
                                                   launch(c, out);
                                                   return out;
                                                 });
  launch(candidate, cols);
}

void launch_col2im(const at::Tensor& cols, const at::Tensor& volumes, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(volumes.dim() == 5 && volumes.is_contiguous() && cols.is_contiguous());
  if (volumes.numel() == 0) return;
  const c10::DeviceGuard guard(volumes.device());
  const int64_t rows = volumes.numel() / volumes.size(4);  // one work-item per volume row
  const bool unit_stride = window.sd == 1 && window.sh == 1 && window.sw == 1 &&
                           (volumes.scalar_type() == c10::kFloat || volumes.scalar_type() == c10::kDouble);
  KernelCall(volumes.device().index(), "conv/col2im", unit_stride ? "col2im_unit_stride" : "col2im_contig",
             dtype_option("DT", volumes.scalar_type()) + index_option(rows))
      .buffer(cols.const_data_ptr())
      .buffer(volumes.data_ptr())
      .value(conv_shape(volumes, window))
      .count(rows)
      .launch(rows);
}

}  // namespace foo_cl::launch
