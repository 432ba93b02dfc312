// im2col and col2im launches.
#include "launch/Conv.h"

#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>

#include "conv/conv_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_conv_shape) == 13 * sizeof(int64_t), "foo_conv_shape: 13 int64 fields, no padding");

foo_conv_shape conv_shape(const at::Tensor& images, const ConvWindow& w) {
  return {images.size(1), images.size(2), images.size(3), w.kh, w.kw, w.sh, w.sw, w.ph, w.pw, w.dh, w.dw,
          w.out_h, w.out_w};
}

}  // namespace

int64_t conv_out_size(int64_t size, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return (size + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

void launch_im2col(const at::Tensor& images, const at::Tensor& cols, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(images.dim() == 4 && images.is_contiguous() && cols.is_contiguous());
  if (cols.numel() == 0) return;
  const c10::DeviceGuard guard(images.device());
  const foo_conv_shape shape = conv_shape(images, window);
  const int64_t rows = cols.numel() / shape.out_w;  // one work-item per column-matrix row segment
  const std::string options =
      std::string("-DDT=") + bits_dtype_name(images.scalar_type()) + " " + index_option(rows);
  KernelCall(images.device().index(), "conv/im2col", "im2col_contig", options)
      .buffer(images.const_data_ptr())
      .buffer(cols.data_ptr())
      .value(shape)
      .count(rows)
      .launch(rows);
}

void launch_col2im(const at::Tensor& cols, const at::Tensor& images, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(images.dim() == 4 && images.is_contiguous() && cols.is_contiguous());
  if (images.numel() == 0) return;
  const c10::DeviceGuard guard(images.device());
  const int64_t rows = images.numel() / images.size(3);  // one work-item per image row
  KernelCall(images.device().index(), "conv/col2im", "col2im_contig",
             dtype_option("DT", images.scalar_type()) + index_option(rows))
      .buffer(cols.const_data_ptr())
      .buffer(images.data_ptr())
      .value(conv_shape(images, window))
      .count(rows)
      .launch(rows);
}

}  // namespace foo_cl::launch
