// Softmax launches: a work-group per row (one work-item on CPU devices, vectorised along a
// contiguous dim).
#include "launch/Softmax.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/WrapDimUtils.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <initializer_list>

namespace foo_cl::launch {
namespace {

struct RowShape {
  int64_t outer = 1, dim = 1, inner = 1;
};

RowShape row_shape(const at::Tensor& t, int64_t dim) {
  RowShape shape;
  if (t.dim() == 0) return shape;
  dim = c10::maybe_wrap_dim(dim, t.dim());
  for (int64_t d = 0; d < dim; ++d) shape.outer *= t.size(d);
  shape.dim = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) shape.inner *= t.size(d);
  return shape;
}

// Runs `name` over every row into `out`, through a contiguous temporary when out is not contiguous.
void launch_rows(const char* name, const at::Tensor& out, std::initializer_list<at::Tensor> inputs, int64_t dim,
                 bool log) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const at::Tensor result = dense_output(out);
  const at::Tensor& first = *inputs.begin();
  const RowShape shape = row_shape(first, dim);
  const c10::ScalarType compute = compute_type(out.scalar_type());
  const runtime::DeviceInfo& info = runtime::device_info(out.device().index());
  const size_t local = info.row_group_size;
  std::string options = dtype_option("IN0", first.scalar_type()) + dtype_option("OUT", out.scalar_type()) +
                        compute_option(compute) + "-DLOCAL_SIZE=" + std::to_string(local) + (log ? " -DLOG" : "");
  if (info.cpu_class && shape.inner == 1 && first.scalar_type() == compute && out.scalar_type() == compute) {
    options += " -DVEC=" + std::to_string(info.vector_width);
  }
  KernelCall call(out.device().index(), "softmax/softmax", name, options);
  call.buffer(result.const_data_ptr());
  for (const at::Tensor& input : inputs) {
    TORCH_INTERNAL_ASSERT(input.is_contiguous());
    call.buffer(input.const_data_ptr());
  }
  call.value(static_cast<uint64_t>(shape.outer)).value(static_cast<uint64_t>(shape.dim));
  call.value(static_cast<uint64_t>(shape.inner));
  const int64_t rows = shape.outer * shape.inner;
  call.launch_groups(std::min<int64_t>(rows, static_cast<int64_t>(info.compute_units) * 64), local);
  copy_back(result, out);
}

}  // namespace

void launch_softmax(const at::Tensor& input, int64_t dim, bool log, const at::Tensor& out) {
  launch_rows("softmax_forward", out, {input}, dim, log);
}

void launch_softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim, bool log,
                             const at::Tensor& grad_input) {
  launch_rows("softmax_backward", grad_input, {grad, output}, dim, log);
}

}  // namespace foo_cl::launch
