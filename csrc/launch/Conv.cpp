// im2col, col2im and depthwise convolution launches.
#include "launch/Conv.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/empty.h>
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

std::vector<std::string> im2col_candidates(c10::DeviceIndex device, bool same) {
  if (!runtime::device_info(device).cpu_class) return {"elements", "rows"};
  std::vector<std::string> rows = {"rows VEC=8", "rows VEC=16", "rows VEC=4", "rows"};
  if (same) rows.insert(rows.begin(), {"planes VEC=16", "planes VEC=8"});
  return rows;
}

void launch_im2col(const at::Tensor& volumes, const at::Tensor& cols, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(volumes.dim() == 5 && volumes.is_contiguous() && cols.is_contiguous());
  if (cols.numel() == 0) return;
  const c10::DeviceGuard guard(volumes.device());
  const c10::DeviceIndex device = volumes.device().index();
  const foo_conv_shape shape = conv_shape(volumes, window);
  const int64_t rows = cols.numel() / shape.out_w;  // column-matrix row segments
  // A 2-d window whose output positions are the plane's own (im2col_planes).
  const bool same = shape.depth == 1 && shape.kd == 1 && shape.pd == 0 && shape.out_d == 1 &&
                    shape.out_h == shape.height && shape.out_w == shape.width && shape.sh == 1 && shape.sw == 1 &&
                    shape.dh == 1 && shape.dw == 1;
  auto launch = [&](const tune::Candidate& candidate, const at::Tensor& out) {
    const bool elements = tune::is_variant(candidate, "elements");
    const bool planes = same && tune::is_variant(candidate, "planes");  // (a pinned one may not apply)
    const int64_t n = elements ? cols.numel() : planes ? rows / shape.out_h : rows;
    std::string options = std::string("-DDT=") + bits_dtype_name(volumes.scalar_type()) + " " + index_option(n);
    if (const int vec = tune::param(candidate, "VEC")) options += " -DVEC=" + std::to_string(vec);
    const char* kernel = elements ? "im2col_elements" : planes ? "im2col_planes" : "im2col_contig";
    KernelCall(device, "conv/im2col", kernel, options)
        .buffer(volumes.const_data_ptr())
        .buffer(out.data_ptr())
        .value(shape)
        .count(n)
        .launch(n);
  };
  // Classes: the element size, the row segment's length and whether its inputs are contiguous
  // (and the window keeps the plane's size), and the size of the column matrices.
  const std::string shape_class = std::to_string(cols.element_size()) + "-byte " +
                                  tune::bucket("out_w", shape.out_w, 4, 1024) +
                                  (same ? " same" : window.sw == 1 ? " unit" : " strided") + " " +
                                  tune::bucket("n", cols.numel(), 1 << 16, 1 << 26);
  const tune::Candidate candidate = tune::choose(device, "im2col", shape_class, im2col_candidates(device, same),
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
  const bool rows_of_compute = volumes.scalar_type() == c10::kFloat || volumes.scalar_type() == c10::kDouble;
  KernelCall(volumes.device().index(), "conv/col2im", rows_of_compute ? "col2im_rows" : "col2im_contig",
             dtype_option("DT", volumes.scalar_type()) + index_option(rows))
      .buffer(cols.const_data_ptr())
      .buffer(volumes.data_ptr())
      .value(conv_shape(volumes, window))
      .count(rows)
      .launch(rows);
}

namespace {

std::string depthwise_options(const at::Tensor& volumes, int64_t n) {
  return dtype_option("DT", volumes.scalar_type()) + dtype_option("ACC", float_accumulate_type(volumes.scalar_type())) +
         index_option(n);
}

}  // namespace

void launch_depthwise(const at::Tensor& volumes, const at::Tensor& weight, const at::Tensor& bias,
                      const at::Tensor& out, const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(volumes.is_contiguous() && weight.is_contiguous() && out.is_contiguous());
  const int64_t n = out.numel() / std::max<int64_t>(window.out_w, 1);  // output rows
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(volumes.device());
  KernelCall(volumes.device().index(), "conv/depthwise", "depthwise_forward",
             depthwise_options(volumes, out.numel()) + (bias.defined() ? "-DWITH_BIAS" : ""))
      .buffer(volumes.const_data_ptr())
      .buffer(weight.const_data_ptr())
      .buffer(or_unused(bias, weight))
      .buffer(out.data_ptr())
      .value(conv_shape(volumes, window))
      .value(static_cast<uint64_t>(weight.size(0) / volumes.size(1)))
      .count(n)
      .launch_loops(n, 1);
}

void launch_depthwise_input_grad(const at::Tensor& grad_output, const at::Tensor& weight, const at::Tensor& grad_input,
                                 const ConvWindow& window) {
  TORCH_INTERNAL_ASSERT(grad_output.is_contiguous() && weight.is_contiguous() && grad_input.is_contiguous());
  const int64_t n = grad_input.numel() / std::max<int64_t>(grad_input.size(4), 1);  // input rows
  if (grad_input.numel() == 0) return;
  const c10::DeviceGuard guard(grad_input.device());
  KernelCall(grad_input.device().index(), "conv/depthwise", "depthwise_input_grad",
             depthwise_options(grad_input, grad_input.numel()))
      .buffer(grad_output.const_data_ptr())
      .buffer(weight.const_data_ptr())
      .buffer(grad_input.data_ptr())
      .value(conv_shape(grad_input, window))
      .value(static_cast<uint64_t>(weight.size(0) / grad_input.size(1)))
      .count(n)
      .launch_loops(n, 1);
}

at::Tensor launch_depthwise_weight_grad(const at::Tensor& grad_output, const at::Tensor& volumes,
                                        const ConvWindow& window, int64_t out_channels) {
  TORCH_INTERNAL_ASSERT(grad_output.is_contiguous() && volumes.is_contiguous());
  const int64_t n = out_channels * window.kd * window.kh * window.kw;
  const at::Tensor grad =
      at::empty({out_channels, window.kd * window.kh * window.kw},
                volumes.options().dtype(float_accumulate_type(volumes.scalar_type())));
  if (volumes.size(0) == 0) return grad.zero_();
  const c10::DeviceGuard guard(volumes.device());
  // A work-item per weight element: as many groups as the elements make, one item each on CPU devices.
  KernelCall call(volumes.device().index(), "conv/depthwise", "depthwise_weight_grad", depthwise_options(volumes, n));
  call.buffer(grad_output.const_data_ptr())
      .buffer(volumes.const_data_ptr())
      .buffer(grad.data_ptr())
      .value(conv_shape(volumes, window))
      .value(static_cast<uint64_t>(out_channels / volumes.size(1)))
      .value(static_cast<uint64_t>(volumes.size(0)))
      .count(n)
      .launch_loops(n, 1);
  return grad;
}

}  // namespace foo_cl::launch
