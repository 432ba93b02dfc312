// Pooling launches: one work-item per output (or, for backwards of overlapping windows, per input).
#include "launch/Pool.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <c10/core/DeviceGuard.h>

#include <cstdint>
#include <vector>

#include "pool/pool_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_pool_shape) == 18 * sizeof(int64_t), "foo_pool_shape: 18 int64 fields, no padding");

// The geometry of pooling `input`-shaped volumes into `output`-shaped ones (depth 1 for 2-d).
foo_pool_shape pool_shape(const at::Tensor& input, const at::Tensor& output, const PoolWindow& w) {
  const bool three_d = w.dims == 3;
  return {three_d ? input.size(-3) : 1, input.size(-2), input.size(-1), three_d ? output.size(-3) : 1,
          output.size(-2), output.size(-1), w.kd, w.kh, w.kw, w.sd, w.sh, w.sw, w.pd, w.ph, w.pw, w.dd, w.dh, w.dw};
}

// The window of adaptive pooling: only the volumes' sizes matter.
PoolWindow adaptive_window(int64_t dims) {
  return {dims, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
}

std::string pool_options(const at::Tensor& t, int64_t n) {
  std::string options = dtype_option("DT", t.scalar_type()) + index_option(n);
  if (c10::isFloatingType(t.scalar_type())) options += "-DCOMPUTE_IS_FLOAT ";
  return options;
}

// Runs `name` of pool/avg_pool writing `out` from `source` (the input, or the output gradient).
void avg_pool(const char* name, const at::Tensor& source, const foo_pool_shape& shape, bool count_include_pad,
              std::optional<int64_t> divisor_override, const at::Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(source.device());
  const at::Tensor result = dense_output(out);
  std::string options = pool_options(result, n);
  if (count_include_pad) options += "-DCOUNT_INCLUDE_PAD ";
  KernelCall(source.device().index(), "pool/avg_pool", name, options)
      .buffer(source.const_data_ptr())
      .buffer(result.data_ptr())
      .value(shape)
      .value(divisor_override.value_or(0))
      .count(n)
      .launch(n);
  copy_back(result, out);
}

// Runs `name` of pool/adaptive_pool reading `source` (and `extra`, if defined) into `outputs`;
// `input` and `output` give the pooling's input and output shapes.
void adaptive_pool(const char* name, int64_t dims, const at::Tensor& source, const at::Tensor& extra,
                   const std::vector<at::Tensor>& outputs, const at::Tensor& input, const at::Tensor& output) {
  const int64_t n = outputs[0].numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(source.device());
  std::vector<at::Tensor> results;
  for (const at::Tensor& t : outputs) results.push_back(dense_output(t));
  KernelCall call(source.device().index(), "pool/adaptive_pool", name, pool_options(results[0], n));
  call.buffer(source.const_data_ptr());
  if (extra.defined()) call.buffer(extra.const_data_ptr());
  for (const at::Tensor& t : results) call.buffer(t.data_ptr());
  call.value(pool_shape(input, output, adaptive_window(dims))).count(n).launch(n);
  for (size_t i = 0; i < outputs.size(); ++i) copy_back(results[i], outputs[i]);
}

}  // namespace

void launch_max_pool(const at::Tensor& input, const PoolWindow& window, const at::Tensor& values,
                     const at::Tensor& positions) {
  const int64_t n = values.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(input.device());
  const at::Tensor v = dense_output(values), p = dense_output(positions);
  // 2x2 windows of stride 2 (most CNNs' pooling) take eight outputs at a time on CPU devices; every
  // window inside the input (ceil_mode's last ones can hang off an odd size).
  const bool window_2x2 = window.dims == 2 && window.kh == 2 && window.kw == 2 && window.sh == 2 && window.sw == 2 &&
                          window.ph == 0 && window.pw == 0 && window.dh == 1 && window.dw == 1 &&
                          2 * values.size(-2) <= input.size(-2) && 2 * values.size(-1) <= input.size(-1) &&
                          (input.scalar_type() == at::kFloat || input.scalar_type() == at::kDouble) &&
                          runtime::device_info(input.device().index()).cpu_class;
  const int64_t rows = n / values.size(-1);
  KernelCall(input.device().index(), "pool/max_pool", window_2x2 ? "max_pool_2x2" : "max_pool_forward",
             pool_options(input, window_2x2 ? rows : n) + (window_2x2 ? "-DWINDOW_2X2 " : ""))
      .buffer(input.const_data_ptr())
      .buffer(v.data_ptr())
      .buffer(p.data_ptr())
      .value(pool_shape(input, values, window))
      .count(window_2x2 ? rows : n)
      .launch(window_2x2 ? rows : n);
  copy_back(v, values);
  copy_back(p, positions);
}

void launch_max_pool_backward(const at::Tensor& grad, const at::Tensor& positions, const PoolWindow& window,
                              const at::Tensor& grad_input) {
  const int64_t n = grad_input.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(grad.device());
  const at::Tensor result = dense_output(grad_input);
  const foo_pool_shape s = pool_shape(grad_input, grad, window);
  const bool disjoint = s.sd >= (s.kd - 1) * s.dd + 1 && s.sh >= (s.kh - 1) * s.dh + 1 && s.sw >= (s.kw - 1) * s.dw + 1;
  // Disjoint windows: one write per output (a quarter of the work for 2x2 windows) after a fill,
  // `run` consecutive outputs a work-item (a row of them on CPU devices); otherwise a work-item per
  // input element gathers from the windows holding it.
  const int64_t run = runtime::device_info(grad.device().index()).cpu_class ? std::max<int64_t>(s.out_w, 1) : 1;
  const int64_t items = disjoint ? grad.numel() / run : n;
  if (disjoint) result.zero_();
  KernelCall call(grad.device().index(), "pool/max_pool", disjoint ? "max_pool_backward_scatter" : "max_pool_backward",
                  pool_options(result, n));
  call.buffer(grad.const_data_ptr()).buffer(positions.const_data_ptr()).buffer(result.data_ptr()).value(s);
  if (disjoint) call.value(static_cast<uint64_t>(run));
  call.count(items).launch(items);
  copy_back(result, grad_input);
}

void launch_avg_pool(const at::Tensor& input, const PoolWindow& window, bool count_include_pad,
                     std::optional<int64_t> divisor_override, const at::Tensor& out) {
  avg_pool("avg_pool_forward", input, pool_shape(input, out, window), count_include_pad, divisor_override, out);
}

void launch_avg_pool_backward(const at::Tensor& grad, const PoolWindow& window, bool count_include_pad,
                              std::optional<int64_t> divisor_override, const at::Tensor& grad_input) {
  avg_pool("avg_pool_backward", grad, pool_shape(grad_input, grad, window), count_include_pad, divisor_override,
           grad_input);
}

void launch_adaptive_avg_pool(int64_t dims, const at::Tensor& input, const at::Tensor& out) {
  adaptive_pool("adaptive_avg_forward", dims, input, at::Tensor(), {out}, input, out);
}

void launch_adaptive_avg_pool_backward(int64_t dims, const at::Tensor& grad, const at::Tensor& grad_input) {
  adaptive_pool("adaptive_avg_backward", dims, grad, at::Tensor(), {grad_input}, grad_input, grad);
}

void launch_adaptive_max_pool(int64_t dims, const at::Tensor& input, const at::Tensor& out, const at::Tensor& indices) {
  adaptive_pool("adaptive_max_forward", dims, input, at::Tensor(), {out, indices}, input, out);
}

void launch_adaptive_max_pool_backward(int64_t dims, const at::Tensor& grad, const at::Tensor& indices,
                                       const at::Tensor& grad_input) {
  adaptive_pool("adaptive_max_backward", dims, grad, indices, {grad_input}, grad_input, grad);
}

}  // namespace foo_cl::launch
