// max_pool2d with indices, avg_pool2d and adaptive average/max pooling, forward and backward
// (launch/Pool), with PyTorch's structured meta functions for argument checks and shapes.
#include "aten/Structured.h"
#include "launch/Pool.h"

#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// PyTorch's pooling arguments: one value for both dims or one per dim; stride defaults to kernel.
launch::PoolWindow pool_window(c10::IntArrayRef kernel, c10::IntArrayRef stride, c10::IntArrayRef padding,
                               c10::IntArrayRef dilation) {
  auto second = [](c10::IntArrayRef v, c10::IntArrayRef fallback) {
    if (v.empty()) v = fallback;
    return std::pair<int64_t, int64_t>{v[0], v.size() == 1 ? v[0] : v[1]};
  };
  const auto [kh, kw] = second(kernel, kernel);
  const auto [sh, sw] = second(stride, kernel);
  const auto [ph, pw] = second(padding, padding);
  const auto [dh, dw] = second(dilation, dilation);
  return {kh, kw, sh, sw, ph, pw, dh, dw};
}

template <class Op>
void max_pool_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_max_pool2d(self.contiguous(), pool_window(kernel, stride, padding, dilation), op.maybe_get_output(0),
                            op.maybe_get_output(1));
}

std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(const Tensor& self, c10::IntArrayRef kernel,
                                                        c10::IntArrayRef stride, c10::IntArrayRef padding,
                                                        c10::IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                                        Tensor& indices) {
  detail::GivenOutputOp<at::meta::structured_max_pool2d_with_indices, false> op(out, indices);
  op.meta(self, kernel, stride, padding, dilation, ceil_mode);
  max_pool_forward(op, self, kernel, stride, padding, dilation);
  op.finish();
  return {out, indices};
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, c10::IntArrayRef kernel,
                                                   c10::IntArrayRef stride, c10::IntArrayRef padding,
                                                   c10::IntArrayRef dilation, bool ceil_mode) {
  detail::FunctionalOp<at::meta::structured_max_pool2d_with_indices> op;
  op.meta(self, kernel, stride, padding, dilation, ceil_mode);
  max_pool_forward(op, self, kernel, stride, padding, dilation);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}

Tensor& max_pool2d_with_indices_backward_out(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                                             c10::IntArrayRef stride, c10::IntArrayRef padding,
                                             c10::IntArrayRef dilation, bool ceil_mode, const Tensor& indices,
                                             Tensor& grad_input) {
  detail::GivenOutputOp<at::meta::structured_max_pool2d_with_indices_backward, false> op(grad_input);
  op.meta(grad_output, self, kernel, stride, padding, dilation, ceil_mode, indices);
  const c10::DeviceGuard guard(self.device());
  launch::launch_max_pool2d_backward(grad_output.contiguous(), indices.contiguous(),
                                     pool_window(kernel, stride, padding, dilation), op.maybe_get_output(0));
  op.finish();
  return grad_input;
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                                        c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                        bool ceil_mode, const Tensor& indices) {
  Tensor grad_input = at::empty({0}, self.options());
  return max_pool2d_with_indices_backward_out(grad_output, self, kernel, stride, padding, dilation, ceil_mode, indices,
                                              grad_input);
}

constexpr int64_t kNoDilation[] = {1};

template <class Op>
void avg_pool_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_avg_pool2d(self.contiguous(), pool_window(kernel, stride, padding, kNoDilation), count_include_pad,
                            divisor_override, op.maybe_get_output(0));
}

Tensor& avg_pool2d_out(const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride, c10::IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  detail::GivenOutputOp<at::meta::structured_avg_pool2d, false> op(out);
  op.meta(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override);
  avg_pool_forward(op, self, kernel, stride, padding, count_include_pad, divisor_override);
  op.finish();
  return out;
}

Tensor avg_pool2d(const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride, c10::IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  detail::FunctionalOp<at::meta::structured_avg_pool2d> op;
  op.meta(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override);
  avg_pool_forward(op, self, kernel, stride, padding, count_include_pad, divisor_override);
  return std::move(op.outputs[0]);
}

Tensor& avg_pool2d_backward_out(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                                c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode,
                                bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& grad_input) {
  detail::GivenOutputOp<at::meta::structured_avg_pool2d_backward, false> op(grad_input);
  op.meta(grad_output, self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override);
  const c10::DeviceGuard guard(self.device());
  launch::launch_avg_pool2d_backward(grad_output.contiguous(), pool_window(kernel, stride, padding, kNoDilation),
                                     count_include_pad, divisor_override, op.maybe_get_output(0));
  op.finish();
  return grad_input;
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                           c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  Tensor grad_input = at::empty({0}, self.options());
  return avg_pool2d_backward_out(grad_output, self, kernel, stride, padding, ceil_mode, count_include_pad,
                                 divisor_override, grad_input);
}

Tensor adaptive_avg_pool2d(const Tensor& self, c10::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
              self.sizes());
  for (int64_t d = 1; d < self.dim(); ++d) {
    TORCH_CHECK(self.size(d) > 0, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ", self.sizes(), " with dimension ", d, " being empty");
  }
  const c10::DeviceGuard guard(self.device());
  std::vector<int64_t> shape = self.sizes().vec();
  shape[shape.size() - 2] = output_size[0];
  shape[shape.size() - 1] = output_size[1];
  Tensor out = at::empty(shape, self.options());
  launch::launch_adaptive_avg_pool2d(self.contiguous(), out);
  return out.contiguous(self.suggest_memory_format());  // channels_last in, channels_last out, as CPU
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  const c10::DeviceGuard guard(self.device());
  Tensor grad_input = at::empty(self.sizes(), self.options());
  launch::launch_adaptive_avg_pool2d_backward(grad_output.contiguous(), grad_input);
  return grad_input;
}

template <class Op>
void adaptive_max_forward(Op& op, const Tensor& self) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_adaptive_max_pool2d(self.contiguous(), op.maybe_get_output(0), op.maybe_get_output(1));
}

std::tuple<Tensor&, Tensor&> adaptive_max_pool2d_out(const Tensor& self, c10::IntArrayRef output_size, Tensor& out,
                                                     Tensor& indices) {
  detail::GivenOutputOp<at::meta::structured_adaptive_max_pool2d, false> op(out, indices);
  op.meta(self, output_size);
  adaptive_max_forward(op, self);
  op.finish();
  return {out, indices};
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, c10::IntArrayRef output_size) {
  detail::FunctionalOp<at::meta::structured_adaptive_max_pool2d> op;
  op.meta(self, output_size);
  adaptive_max_forward(op, self);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}

Tensor& adaptive_max_pool2d_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                         Tensor& grad_input) {
  detail::GivenOutputOp<at::meta::structured_adaptive_max_pool2d_backward, false> op(grad_input);
  op.meta(grad_output, self, indices);
  const c10::DeviceGuard guard(self.device());
  launch::launch_adaptive_max_pool2d_backward(grad_output.contiguous(), indices.contiguous(), op.maybe_get_output(0));
  op.finish();
  return grad_input;
}

Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  Tensor grad_input = at::empty({0}, self.options());
  return adaptive_max_pool2d_backward_out(grad_output, self, indices, grad_input);
}

// max_unpool: each input value written at its index within its plane of an output of zeros.
Tensor max_unpool(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, int64_t dims) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == dims, "There should be exactly ", dims,
              " elements (depth, height, width) in output_size, but got ", output_size.size(), " elements.");
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, "Input to max_unpooling", dims, "d should be a ",
              dims + 1, "d or ", dims + 2, "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  const c10::DeviceGuard guard(self.device());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - dims);
  const int64_t planes = c10::multiply_integers(shape);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = at::zeros(shape, self.options());
  if (self.numel() > 0) {
    out.view({planes, -1}).scatter_(1, indices.reshape({planes, -1}), self.reshape({planes, -1}));
  }
  return out.contiguous(self.suggest_memory_format());
}

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size) {
  return max_unpool(self, indices, output_size, 2);
}

Tensor& max_unpool2d_out(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, Tensor& out) {
  const Tensor result = max_unpool(self, indices, output_size, 2);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, c10::IntArrayRef,
                    c10::IntArrayRef) {
  return max_unpool(self, indices, output_size, 3);
}

Tensor& max_unpool3d_out(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, c10::IntArrayRef,
                         c10::IntArrayRef, Tensor& out) {
  const Tensor result = max_unpool(self, indices, output_size, 3);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max_unpool2d", max_unpool2d);
  m.impl("max_unpool2d.out", max_unpool2d_out);
  m.impl("max_unpool3d", max_unpool3d);
  m.impl("max_unpool3d.out", max_unpool3d_out);
  m.impl("_adaptive_avg_pool2d", adaptive_avg_pool2d);
  m.impl("_adaptive_avg_pool2d_backward", adaptive_avg_pool2d_backward);
  m.impl("adaptive_max_pool2d", adaptive_max_pool2d);
  m.impl("adaptive_max_pool2d.out", adaptive_max_pool2d_out);
  m.impl("adaptive_max_pool2d_backward", adaptive_max_pool2d_backward);
  m.impl("adaptive_max_pool2d_backward.grad_input", adaptive_max_pool2d_backward_out);
  m.impl("avg_pool2d", avg_pool2d);
  m.impl("avg_pool2d.out", avg_pool2d_out);
  m.impl("avg_pool2d_backward", avg_pool2d_backward);
  m.impl("avg_pool2d_backward.grad_input", avg_pool2d_backward_out);
  m.impl("max_pool2d_with_indices", max_pool2d_with_indices);
  m.impl("max_pool2d_with_indices.out", max_pool2d_with_indices_out);
  m.impl("max_pool2d_with_indices_backward", max_pool2d_with_indices_backward);
  m.impl("max_pool2d_with_indices_backward.grad_input", max_pool2d_with_indices_backward_out);
}

}  // namespace foo_cl::aten
