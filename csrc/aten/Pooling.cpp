// max_pool2d with indices, avg_pool2d and adaptive average/max pooling, forward and backward
// (kernels_cl/pool/), with PyTorch's structured meta functions for argument checks and shapes.
#include "aten/Structured.h"
#include "launch/Launch.h"

#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// foo_pool_shape of kernels_cl/pool.clh.
struct PoolShape {
  int64_t height, width, out_h, out_w;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// PyTorch's pooling arguments: one value for both dims or one per dim; stride defaults to kernel.
PoolShape pool_shape(const Tensor& input, const Tensor& output, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                     c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  auto second = [](c10::IntArrayRef v, c10::IntArrayRef fallback) {
    if (v.empty()) v = fallback;
    return std::pair<int64_t, int64_t>{v[0], v.size() == 1 ? v[0] : v[1]};
  };
  const auto [kh, kw] = second(kernel, kernel);
  const auto [sh, sw] = second(stride, kernel);
  const auto [ph, pw] = second(padding, padding);
  const auto [dh, dw] = second(dilation, dilation);
  return {input.size(-2), input.size(-1), output.size(-2), output.size(-1), kh, kw, sh, sw, ph, pw, dh, dw};
}

std::string pool_options(const Tensor& t, int64_t n) {
  std::string options = launch::dtype_option("DT", t.scalar_type()) + launch::index_option(n);
  if (c10::isFloatingType(t.scalar_type())) options += "-DCOMPUTE_IS_FLOAT ";
  return options;
}

template <class Op>
void max_pool_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  const Tensor& out = op.maybe_get_output(0);
  const Tensor& indices = op.maybe_get_output(1);
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(self.device());
  const Tensor input = self.contiguous();
  // Outputs in the default layout, copied into channels-last ones.
  const Tensor values = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  const Tensor positions = indices.is_contiguous() ? indices : at::empty(indices.sizes(), indices.options());
  launch::KernelCall(self.device().index(), "pool/max_pool2d", "max_pool2d_forward", pool_options(input, n))
      .buffer(input.const_data_ptr())
      .buffer(values.data_ptr())
      .buffer(positions.data_ptr())
      .value(pool_shape(input, out, kernel, stride, padding, dilation))
      .count(n)
      .launch(n);
  if (!values.is_same(out)) out.copy_(values);
  if (!positions.is_same(indices)) indices.copy_(positions);
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
  const Tensor& result = op.maybe_get_output(0);
  const int64_t n = result.numel();
  if (n > 0) {
    const c10::DeviceGuard guard(self.device());
    const Tensor grad = grad_output.contiguous(), positions = indices.contiguous();
    const Tensor dense = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
    const PoolShape shape = pool_shape(self, grad_output, kernel, stride, padding, dilation);
    const bool disjoint = shape.sh >= (shape.kh - 1) * shape.dh + 1 && shape.sw >= (shape.kw - 1) * shape.dw + 1;
    // Disjoint windows: one write per output (a quarter of the work for 2x2 windows) after a fill.
    const int64_t items = disjoint ? grad.numel() : n;
    if (disjoint) dense.zero_();
    launch::KernelCall(self.device().index(), "pool/max_pool2d",
                       disjoint ? "max_pool2d_backward_scatter" : "max_pool2d_backward",
                       pool_options(dense, std::max(n, items)))
        .buffer(grad.const_data_ptr())
        .buffer(positions.const_data_ptr())
        .buffer(dense.data_ptr())
        .value(shape)
        .count(items)
        .launch(items);
    if (!dense.is_same(result)) result.copy_(dense);
  }
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

// Runs `name` of pool/avg_pool2d over `result` (written densely, copied into a strided result).
void avg_pool_launch(const char* name, const Tensor& result, const Tensor& input, const PoolShape& shape,
                     bool count_include_pad, std::optional<int64_t> divisor_override, int64_t n) {
  if (n == 0) return;
  const Tensor dense = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  std::string options = pool_options(dense, n);
  if (count_include_pad) options += "-DCOUNT_INCLUDE_PAD ";
  launch::KernelCall(input.device().index(), "pool/avg_pool2d", name, options)
      .buffer(input.const_data_ptr())
      .buffer(dense.data_ptr())
      .value(shape)
      .value(divisor_override.value_or(0))
      .count(n)
      .launch(n);
  if (!dense.is_same(result)) result.copy_(dense);
}

template <class Op>
void avg_pool_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Tensor& out = op.maybe_get_output(0);
  const c10::DeviceGuard guard(self.device());
  const Tensor input = self.contiguous();
  avg_pool_launch("avg_pool2d_forward", out, input, pool_shape(input, out, kernel, stride, padding, kNoDilation),
                  count_include_pad, divisor_override, out.numel());
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
  const Tensor& result = op.maybe_get_output(0);
  const c10::DeviceGuard guard(self.device());
  const Tensor grad = grad_output.contiguous();
  avg_pool_launch("avg_pool2d_backward", result, grad,
                  pool_shape(self, grad_output, kernel, stride, padding, kNoDilation), count_include_pad,
                  divisor_override, result.numel());
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

// Adaptive pooling: input [..., height, width] to output [..., out_h, out_w].
PoolShape adaptive_shape(const Tensor& input, const Tensor& output) {
  return {input.size(-2), input.size(-1), output.size(-2), output.size(-1), 0, 0, 0, 0, 0, 0, 0, 0};
}

// Runs `name` of pool/adaptive_pool2d writing `outputs` (dense, copied into strided ones).
void adaptive_launch(const char* name, const Tensor& source, const Tensor& extra, std::vector<Tensor> outputs,
                     const PoolShape& shape) {
  const int64_t n = outputs[0].numel();
  if (n == 0) return;
  std::vector<Tensor> dense;
  for (const Tensor& t : outputs) dense.push_back(t.is_contiguous() ? t : at::empty(t.sizes(), t.options()));
  launch::KernelCall call(source.device().index(), "pool/adaptive_pool2d", name, pool_options(dense[0], n));
  call.buffer(source.const_data_ptr());
  if (extra.defined()) call.buffer(extra.const_data_ptr());
  for (const Tensor& t : dense) call.buffer(t.data_ptr());
  call.value(shape).count(n).launch(n);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!dense[i].is_same(outputs[i])) outputs[i].copy_(dense[i]);
  }
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
  const Tensor input = self.contiguous();
  Tensor out = at::empty(shape, self.options());
  adaptive_launch("adaptive_avg_forward", input, Tensor(), {out}, adaptive_shape(input, out));
  return out;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  const c10::DeviceGuard guard(self.device());
  const Tensor grad = grad_output.contiguous();
  Tensor grad_input = at::empty(self.sizes(), self.options());
  adaptive_launch("adaptive_avg_backward", grad, Tensor(), {grad_input}, adaptive_shape(self, grad));
  return grad_input;
}

template <class Op>
void adaptive_max_forward(Op& op, const Tensor& self) {
  const c10::DeviceGuard guard(self.device());
  const Tensor input = self.contiguous();
  const Tensor& out = op.maybe_get_output(0);
  adaptive_launch("adaptive_max_forward", input, Tensor(), {out, op.maybe_get_output(1)}, adaptive_shape(input, out));
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
  const Tensor grad = grad_output.contiguous(), positions = indices.contiguous();
  adaptive_launch("adaptive_max_backward", grad, positions, {op.maybe_get_output(0)}, adaptive_shape(self, grad));
  op.finish();
  return grad_input;
}

Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  Tensor grad_input = at::empty({0}, self.options());
  return adaptive_max_pool2d_backward_out(grad_output, self, indices, grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
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
