// Max pooling with indices, average pooling and adaptive average/max pooling, 2-d and 3-d, forward
// and backward (launch/Pool), and max unpooling. Structured operators use PyTorch's meta functions
// for argument checks and shapes; max_pool3d and adaptive_avg_pool2d/3d, which are not structured,
// use the shape checks of ATen/native/Pool.h and CPU's messages.
#include "aten/Out.h"
#include "aten/Structured.h"
#include "launch/Pool.h"

#include <ATen/native/Pool.h>
#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/adaptive_max_pool3d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool3d_meta.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/avg_pool3d_backward_meta.h>
#include <ATen/ops/avg_pool3d_meta.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// PyTorch's pooling arguments: one value for every dim or one per dim; stride defaults to kernel.
// A 2-d window has depth 1.
launch::PoolWindow pool_window(int64_t dims, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                               c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  // Value i (0: depth, 1: height, 2: width) of `v`, or `missing` when the window has no depth.
  auto at = [dims](c10::IntArrayRef v, int64_t i, int64_t missing) {
    if (dims == 2 && i == 0) return missing;
    return v.size() == 1 ? v[0] : v[i - (3 - dims)];
  };
  if (stride.empty()) stride = kernel;
  launch::PoolWindow w{dims};
  w.kd = at(kernel, 0, 1), w.kh = at(kernel, 1, 1), w.kw = at(kernel, 2, 1);
  w.sd = at(stride, 0, 1), w.sh = at(stride, 1, 1), w.sw = at(stride, 2, 1);
  w.pd = at(padding, 0, 0), w.ph = at(padding, 1, 0), w.pw = at(padding, 2, 0);
  w.dd = at(dilation, 0, 1), w.dh = at(dilation, 1, 1), w.dw = at(dilation, 2, 1);
  return w;
}

constexpr int64_t kNoDilation[] = {1};

// What CPU's backward kernels check beyond the meta functions: the gradient's dtype is the
// input's, and indices (if any) are int64, since the kernels read them as such.
void check_backward(const char* name, const Tensor& grad_output, const Tensor& self,
                    const Tensor& indices = Tensor()) {
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type(), name, ": expected grad_output of dtype ",
              self.scalar_type(), ", got ", grad_output.scalar_type());
  TORCH_CHECK(!indices.defined() || indices.scalar_type() == at::kLong, name,
              ": expected indices of dtype int64, got ", indices.scalar_type());
}

// Registers the functional and out= variants of a structured operator with two outputs (values
// and indices).
template <class Meta, class... Rest>
void register_with_indices(torch::Library& m, const char* functional, const char* out,
                           StructuredKernelWithSelf<Meta, Rest...> kernel) {
  m.impl(functional, [kernel](const Tensor& self, Rest... rest) {
    detail::FunctionalOp<Meta> op;
    op.meta(self, rest...);
    kernel(op, self, rest...);
    return std::make_tuple(std::move(op.outputs[0]), std::move(op.outputs[1]));
  });
  m.impl(out, [kernel](const Tensor& self, Rest... rest, Tensor& values, Tensor& indices) {
    detail::GivenOutputOp<Meta, false> op(values, indices);
    op.meta(self, rest...);
    kernel(op, self, rest...);
    op.finish();
    return std::tuple<Tensor&, Tensor&>(values, indices);
  });
}

// ---- max pooling -------------------------------------------------------------------------------

template <class Op>
void max_pool2d_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                        c10::IntArrayRef padding, c10::IntArrayRef dilation, bool) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_max_pool(self.contiguous(), pool_window(2, kernel, stride, padding, dilation), op.maybe_get_output(0),
                          op.maybe_get_output(1));
}

template <class Op>
void max_pool2d_backward(Op& op, const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                         c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, bool,
                         const Tensor& indices) {
  check_backward("max_pool2d_with_indices_backward()", grad_output, self, indices);
  const c10::DeviceGuard guard(grad_output.device());
  launch::launch_max_pool_backward(grad_output.contiguous(), indices.contiguous(),
                                   pool_window(2, kernel, stride, padding, dilation), op.maybe_get_output(0));
}

// max_pool3d's argument checks and output sizes [..., out_d, out_h, out_w], as CPU's.
std::vector<int64_t> max_pool3d_shape(const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                                      c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode,
                                      const char* name) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 3,
              "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3,
              "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3,
              "max_pool3d: padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3,
              "max_pool3d: dilation must be either a single int, or a tuple of three ints");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, name, ": Expected 4D or 5D tensor for input, but got: ",
              self.sizes());
  const launch::PoolWindow w = pool_window(3, kernel, stride, padding, dilation);
  const int64_t depth = self.size(-3), height = self.size(-2), width = self.size(-1);
  const int64_t out_d = at::native::pooling_output_shape<int64_t>(depth, w.kd, w.pd, w.sd, w.dd, ceil_mode);
  const int64_t out_h = at::native::pooling_output_shape<int64_t>(height, w.kh, w.ph, w.sh, w.dh, ceil_mode);
  const int64_t out_w = at::native::pooling_output_shape<int64_t>(width, w.kw, w.pw, w.sw, w.dw, ceil_mode);
  at::native::pool3d_shape_check(self, self.size(-4), w.kd, w.kh, w.kw, w.sd, w.sh, w.sw, w.pd, w.ph, w.pw, w.dd,
                                 w.dh, w.dw, depth, height, width, out_d, out_h, out_w, name);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 3);
  shape.insert(shape.end(), {out_d, out_h, out_w});
  return shape;
}

std::tuple<Tensor, Tensor> max_pool3d_values_indices(const Tensor& self, c10::IntArrayRef kernel,
                                                   c10::IntArrayRef stride, c10::IntArrayRef padding,
                                                   c10::IntArrayRef dilation, bool ceil_mode) {
  const auto shape = max_pool3d_shape(self, kernel, stride, padding, dilation, ceil_mode, "max_pool3d_with_indices()");
  const c10::DeviceGuard guard(self.device());
  const auto format = self.suggest_memory_format();
  Tensor values = at::empty(shape, self.options().memory_format(format));
  Tensor indices = at::empty(shape, self.options().dtype(at::kLong).memory_format(format));
  launch::launch_max_pool(self.contiguous(), pool_window(3, kernel, stride, padding, dilation), values, indices);
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(const Tensor& self, c10::IntArrayRef kernel,
                                                        c10::IntArrayRef stride, c10::IntArrayRef padding,
                                                        c10::IntArrayRef dilation, bool ceil_mode, Tensor& values,
                                                        Tensor& indices) {
  return write_out(max_pool3d_values_indices(self, kernel, stride, padding, dilation, ceil_mode), values, indices);
}

Tensor max_pool3d_grad_input(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                                        c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                        bool ceil_mode, const Tensor& indices) {
  const char* name = "max_pool3d_with_indices_backward()";
  const auto shape = max_pool3d_shape(self, kernel, stride, padding, dilation, ceil_mode, name);
  check_backward(name, grad_output, self, indices);
  TORCH_CHECK(grad_output.sizes() == c10::IntArrayRef(shape) && indices.sizes() == c10::IntArrayRef(shape), name,
              ": expected grad_output and indices of sizes ", shape, ", got ", grad_output.sizes(), " and ",
              indices.sizes());
  const c10::DeviceGuard guard(self.device());
  Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  launch::launch_max_pool_backward(grad_output.contiguous(), indices.contiguous(),
                                   pool_window(3, kernel, stride, padding, dilation), grad_input);
  return grad_input;
}

Tensor& max_pool3d_with_indices_backward_out(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                                             c10::IntArrayRef stride, c10::IntArrayRef padding,
                                             c10::IntArrayRef dilation, bool ceil_mode, const Tensor& indices,
                                             Tensor& grad_input) {
  return write_out(
      max_pool3d_grad_input(grad_output, self, kernel, stride, padding, dilation, ceil_mode, indices),
      grad_input);
}

// ---- average pooling ---------------------------------------------------------------------------

template <int64_t Dims, class Op>
void avg_pool_forward(Op& op, const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, bool, bool count_include_pad,
                      std::optional<int64_t> divisor_override) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_avg_pool(self.contiguous(), pool_window(Dims, kernel, stride, padding, kNoDilation),
                          count_include_pad, divisor_override, op.maybe_get_output(0));
}

template <int64_t Dims, class Op>
void avg_pool_backward(Op& op, const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel,
                       c10::IntArrayRef stride, c10::IntArrayRef padding, bool, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  check_backward(Dims == 2 ? "avg_pool2d_backward()" : "avg_pool3d_backward()", grad_output, self);
  const c10::DeviceGuard guard(grad_output.device());
  launch::launch_avg_pool_backward(grad_output.contiguous(), pool_window(Dims, kernel, stride, padding, kNoDilation),
                                   count_include_pad, divisor_override, op.maybe_get_output(0));
}

// ---- adaptive pooling --------------------------------------------------------------------------

// adaptive_avg_pool2d/3d's checks, as CPU's.
void check_adaptive_avg(const Tensor& self, c10::IntArrayRef output_size, int64_t dims) {
  const std::string name = "adaptive_avg_pool" + std::to_string(dims) + "d";
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == dims, name, ": output_size must be ", dims);
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, name, "(): Expected ", dims + 1, "D or ", dims + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t d = 1; d < self.dim(); ++d) {
    TORCH_CHECK(self.size(d) > 0, name, "(): Expected input to have non-zero size for non-batch dimensions, but input "
                "has sizes ", self.sizes(), " with dimension ", d, " being empty");
  }
}

template <int64_t Dims>
Tensor adaptive_avg_pool(const Tensor& self, c10::IntArrayRef output_size) {
  check_adaptive_avg(self, output_size, Dims);
  const c10::DeviceGuard guard(self.device());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - Dims);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = at::empty(shape, self.options());
  launch::launch_adaptive_avg_pool(Dims, self.contiguous(), out);
  // As CPU: channels_last in, channels_last out in 2-d; 3-d outputs are contiguous.
  return Dims == 2 ? out.contiguous(self.suggest_memory_format()) : out;
}

template <int64_t Dims>
Tensor& adaptive_avg_pool_out(const Tensor& self, c10::IntArrayRef output_size, Tensor& out) {
  return write_out(adaptive_avg_pool<Dims>(self, output_size), out);
}

template <int64_t Dims>
Tensor adaptive_avg_pool_backward(const Tensor& grad_output, const Tensor& self) {
  const char* name = Dims == 2 ? "adaptive_avg_pool2d_backward()" : "adaptive_avg_pool3d_backward()";
  check_backward(name, grad_output, self);
  TORCH_CHECK(grad_output.dim() == self.dim() &&
                  grad_output.sizes().slice(0, self.dim() - Dims) == self.sizes().slice(0, self.dim() - Dims),
              name, ": expected grad_output of sizes [", self.sizes().slice(0, self.dim() - Dims),
              ", ...] (", self.dim(), " dims), got ", grad_output.sizes());
  const c10::DeviceGuard guard(self.device());
  Tensor grad_input = at::empty(self.sizes(), self.options());
  launch::launch_adaptive_avg_pool_backward(Dims, grad_output.contiguous(), grad_input);
  return grad_input;
}

template <int64_t Dims>
Tensor& adaptive_avg_pool_backward_out(const Tensor& grad_output, const Tensor& self, Tensor& grad_input) {
  return write_out(adaptive_avg_pool_backward<Dims>(grad_output, self), grad_input);
}

template <int64_t Dims, class Op>
void adaptive_max_forward(Op& op, const Tensor& self, c10::IntArrayRef) {
  const c10::DeviceGuard guard(self.device());
  launch::launch_adaptive_max_pool(Dims, self.contiguous(), op.maybe_get_output(0), op.maybe_get_output(1));
}

template <int64_t Dims, class Op>
void adaptive_max_backward(Op& op, const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  check_backward(Dims == 2 ? "adaptive_max_pool2d_backward()" : "adaptive_max_pool3d_backward()", grad_output, self,
                 indices);
  const c10::DeviceGuard guard(grad_output.device());
  launch::launch_adaptive_max_pool_backward(Dims, grad_output.contiguous(), indices.contiguous(),
                                            op.maybe_get_output(0));
}

// ---- unpooling ---------------------------------------------------------------------------------

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
  return write_out(max_unpool(self, indices, output_size, 2), out);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, c10::IntArrayRef,
                    c10::IntArrayRef) {
  return max_unpool(self, indices, output_size, 3);
}

Tensor& max_unpool3d_out(const Tensor& self, const Tensor& indices, c10::IntArrayRef output_size, c10::IntArrayRef,
                         c10::IntArrayRef, Tensor& out) {
  return write_out(max_unpool(self, indices, output_size, 3), out);
}

using IntArrays = c10::IntArrayRef;
using Divisor = std::optional<int64_t>;

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  register_with_indices<structured_max_pool2d_with_indices, IntArrays, IntArrays, IntArrays, IntArrays, bool>(
      m, "max_pool2d_with_indices", "max_pool2d_with_indices.out",
      max_pool2d_forward<structured_max_pool2d_with_indices>);
  register_structured_with_self<structured_max_pool2d_with_indices_backward, const Tensor&, IntArrays, IntArrays,
                                IntArrays, IntArrays, bool, const Tensor&>(
      m, "max_pool2d_with_indices_backward", nullptr, "max_pool2d_with_indices_backward.grad_input",
      max_pool2d_backward<structured_max_pool2d_with_indices_backward>);
  m.impl("max_pool3d_with_indices", max_pool3d_values_indices);
  m.impl("max_pool3d_with_indices.out", max_pool3d_with_indices_out);
  m.impl("max_pool3d_with_indices_backward", max_pool3d_grad_input);
  m.impl("max_pool3d_with_indices_backward.grad_input", max_pool3d_with_indices_backward_out);

  register_structured_with_self<structured_avg_pool2d, IntArrays, IntArrays, IntArrays, bool, bool, Divisor>(
      m, "avg_pool2d", nullptr, "avg_pool2d.out", avg_pool_forward<2, structured_avg_pool2d>);
  register_structured_with_self<structured_avg_pool3d, IntArrays, IntArrays, IntArrays, bool, bool, Divisor>(
      m, "avg_pool3d", nullptr, "avg_pool3d.out", avg_pool_forward<3, structured_avg_pool3d>);
  register_structured_with_self<structured_avg_pool2d_backward, const Tensor&, IntArrays, IntArrays, IntArrays, bool,
                                bool, Divisor>(m, "avg_pool2d_backward", nullptr, "avg_pool2d_backward.grad_input",
                                               avg_pool_backward<2, structured_avg_pool2d_backward>);
  register_structured_with_self<structured_avg_pool3d_backward, const Tensor&, IntArrays, IntArrays, IntArrays, bool,
                                bool, Divisor>(m, "avg_pool3d_backward", nullptr, "avg_pool3d_backward.grad_input",
                                               avg_pool_backward<3, structured_avg_pool3d_backward>);

  m.impl("_adaptive_avg_pool2d", adaptive_avg_pool<2>);
  m.impl("adaptive_avg_pool2d.out", adaptive_avg_pool_out<2>);
  m.impl("_adaptive_avg_pool2d_backward", adaptive_avg_pool_backward<2>);
  m.impl("_adaptive_avg_pool3d", adaptive_avg_pool<3>);
  m.impl("adaptive_avg_pool3d.out", adaptive_avg_pool_out<3>);
  m.impl("_adaptive_avg_pool3d_backward", adaptive_avg_pool_backward<3>);
  m.impl("adaptive_avg_pool3d_backward.grad_input", adaptive_avg_pool_backward_out<3>);
  register_with_indices<structured_adaptive_max_pool2d, IntArrays>(m, "adaptive_max_pool2d", "adaptive_max_pool2d.out",
                                                                   adaptive_max_forward<2, structured_adaptive_max_pool2d>);
  register_with_indices<structured_adaptive_max_pool3d, IntArrays>(m, "adaptive_max_pool3d", "adaptive_max_pool3d.out",
                                                                   adaptive_max_forward<3, structured_adaptive_max_pool3d>);
  register_structured_with_self<structured_adaptive_max_pool2d_backward, const Tensor&, const Tensor&>(
      m, "adaptive_max_pool2d_backward", nullptr, "adaptive_max_pool2d_backward.grad_input",
      adaptive_max_backward<2, structured_adaptive_max_pool2d_backward>);
  register_structured_with_self<structured_adaptive_max_pool3d_backward, const Tensor&, const Tensor&>(
      m, "adaptive_max_pool3d_backward", nullptr, "adaptive_max_pool3d_backward.grad_input",
      adaptive_max_backward<3, structured_adaptive_max_pool3d_backward>);

  m.impl("max_unpool2d", max_unpool2d);
  m.impl("max_unpool2d.out", max_unpool2d_out);
  m.impl("max_unpool3d", max_unpool3d);
  m.impl("max_unpool3d.out", max_unpool3d_out);
}

}  // namespace foo_cl::aten
