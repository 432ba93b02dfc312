// im2col and col2im launches.
#include "launch/Conv.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>

#include "conv/conv_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_conv_shape) == 19 * sizeof(int64_t), "foo_conv_shape: 19 int64 fields, no padding");

foo_conv_shape conv_shape(const at::Tensor& volumes, const ConvWindow& w) {
  return {volumes.size(1), volumes.size(2), volumes.size(3), volumes.size(4), w.kd, w.kh, w.kw, w.sd, w.sh,
          w.sw, w.pd, w.ph, w.pw, w.dd, w.dh, w.dw, w.out_d, w.out_h, w.out_w};
}

}  // namespace

int64_t conv_out_size(int64_t size, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return (size + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

void launch_im2col(const at::Tensor& volumes, const at::Tensor& cols, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(volumes.dim() == 5 && volumes.is_contiguous() && cols.is_contiguous());
  if (cols.numel() == 0) return;
  const c10::DeviceGuard guard(volumes.device());
  const foo_conv_shape shape = conv_shape(volumes, window);
  const int64_t rows = cols.numel() / shape.out_w;  // one work-item per column-matrix row segment
  const std::string options =
      std::string("-DDT=") + bits_dtype_name(volumes.scalar_type()) + " " + index_option(rows);
  KernelCall(volumes.device().index(), "conv/im2col", "im2col_contig", options)
      .buffer(volumes.const_data_ptr())
      .buffer(cols.data_ptr())
      .value(shape)
      .count(rows)
      .launch(rows);
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
