// softmax and log_softmax, forward and backward, along any dim (kernels_cl/softmax/softmax.cl):
// inputs are made contiguous and viewed as [outer, dim, inner]; half and bfloat16 compute in float.
#include "aten/Structured.h"
#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_log_softmax_backward_data_meta.h>
#include <ATen/ops/_log_softmax_meta.h>
#include <ATen/ops/_softmax_backward_data_meta.h>
#include <ATen/ops/_softmax_meta.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

struct RowShape {
  int64_t outer = 1, dim = 1, inner = 1;
};

RowShape row_shape(const Tensor& t, int64_t dim) {
  RowShape shape;
  if (t.dim() == 0) return shape;
  dim = c10::maybe_wrap_dim(dim, t.dim());
  for (int64_t d = 0; d < dim; ++d) shape.outer *= t.size(d);
  shape.dim = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) shape.inner *= t.size(d);
  return shape;
}


// Runs `name` over every row into `out`, through a contiguous temporary when out is not contiguous.
void launch_rows(const char* name, const Tensor& out, std::initializer_list<Tensor> inputs, int64_t dim, bool log) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const Tensor result = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  const Tensor& first = *inputs.begin();
  const RowShape shape = row_shape(first, dim);
  const c10::ScalarType compute = launch::compute_type(out.scalar_type());
  const runtime::DeviceInfo& info = runtime::device_info(out.device().index());
  const bool cpu_device = info.cpu_class;
  const size_t local = info.row_group_size;
  std::string options = launch::dtype_option("IN0", first.scalar_type()) +
                        launch::dtype_option("OUT", out.scalar_type()) + launch::compute_option(compute) +
                        "-DLOCAL_SIZE=" + std::to_string(local) + (log ? " -DLOG" : "");
  if (cpu_device && shape.inner == 1 && first.scalar_type() == compute && out.scalar_type() == compute) {
    options += " -DVEC=" + std::to_string(info.vector_width);
  }
  launch::KernelCall call(out.device().index(), "softmax/softmax", name, options);
  call.buffer(result.const_data_ptr());
  for (const Tensor& input : inputs) {
    TORCH_INTERNAL_ASSERT(input.is_contiguous());
    call.buffer(input.const_data_ptr());
  }
  call.value(static_cast<cl_ulong>(shape.outer)).value(static_cast<cl_ulong>(shape.dim));
  call.value(static_cast<cl_ulong>(shape.inner));
  const int64_t rows = shape.outer * shape.inner;
  call.launch_groups(std::min<int64_t>(rows, static_cast<int64_t>(info.compute_units) * 64), local);
  if (!result.is_same(out)) out.copy_(result);
}

template <class Meta>
void register_forward(torch::Library& m, const char* functional, const char* out, bool log) {
  register_structured_with_self<Meta, int64_t, bool>(
      m, functional, nullptr, out, [log](Meta& op, const Tensor& self, int64_t dim, bool) {
        const Tensor input = self.contiguous();
        launch_rows("softmax_forward", op.maybe_get_output(0), {input}, dim, log);
      });
}

template <class Meta>
void register_backward(torch::Library& m, const char* functional, const char* out, bool log) {
  register_structured_with_self<Meta, const Tensor&, int64_t, at::ScalarType>(
      m, functional, nullptr, out,
      [log](Meta& op, const Tensor& grad_output, const Tensor& output, int64_t dim, at::ScalarType) {
        const Tensor& grad_input = op.maybe_get_output(0);
        const Tensor grad = grad_output.contiguous();
        // The kernel reads the forward output in grad_input's dtype (they differ after half_to_float).
        const Tensor forward = output.to(grad_input.scalar_type()).contiguous();
        launch_rows("softmax_backward", grad_input, {grad, forward}, dim, log);
      });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_forward<at::meta::structured__softmax>(m, "_softmax", "_softmax.out", false);
  register_forward<at::meta::structured__log_softmax>(m, "_log_softmax", "_log_softmax.out", true);
  register_backward<at::meta::structured__softmax_backward_data>(m, "_softmax_backward_data",
                                                                 "_softmax_backward_data.out", false);
  register_backward<at::meta::structured__log_softmax_backward_data>(m, "_log_softmax_backward_data",
                                                                     "_log_softmax_backward_data.out", true);
}

}  // namespace foo_cl::aten
