// Softmax launches: a work-group per row (one work-item on CPU devices, vectorised along a
// contiguous dim), its size (or vector width) from the tuner.
#include "launch/Softmax.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty_like.h>
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

// Launches `name` of `candidate` over every row of the contiguous `inputs` into the contiguous `out`.
void launch_candidate(const char* name, const std::string& candidate, const at::Tensor& out,
                      std::initializer_list<at::Tensor> inputs, const RowShape& shape, bool log, bool vectorized) {
  const at::Tensor& first = *inputs.begin();
  const runtime::DeviceInfo& info = runtime::device_info(out.device().index());
  const size_t local = tune::param(candidate, "L");
  std::string options = dtype_option("IN0", first.scalar_type()) + dtype_option("OUT", out.scalar_type()) +
                        compute_option(compute_type(out.scalar_type())) + "-DLOCAL_SIZE=" + std::to_string(local) +
                        (log ? " -DLOG" : "");
  const int vec = tune::param(candidate, "VEC");
  if (vectorized && vec > 0) options += " -DVEC=" + std::to_string(vec);
  KernelCall call(out.device().index(), "softmax/softmax", name, options);
  call.buffer(out.const_data_ptr());
  for (const at::Tensor& input : inputs) {
    TORCH_INTERNAL_ASSERT(input.is_contiguous());
    call.buffer(input.const_data_ptr());
  }
  call.value(static_cast<uint64_t>(shape.outer)).value(static_cast<uint64_t>(shape.dim));
  call.value(static_cast<uint64_t>(shape.inner));
  const int64_t rows = shape.outer * shape.inner;
  call.launch_groups(std::min<int64_t>(rows, static_cast<int64_t>(info.compute_units) * 64), local);
}

// Runs `name` over every row into `out`, through a contiguous temporary when out is not contiguous,
// with the work-items per row (or vector width) the tuner chose for the shape class.
void launch_rows(const char* name, const at::Tensor& out, std::initializer_list<at::Tensor> inputs, int64_t dim,
                 bool log) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const at::Tensor result = dense_output(out);
  const at::Tensor& first = *inputs.begin();
  const RowShape shape = row_shape(first, dim);
  const c10::ScalarType compute = compute_type(out.scalar_type());
  // Vectors along contiguous rows of the compute dtype (CPU-class devices).
  const bool vectorized = shape.inner == 1 && first.scalar_type() == compute && out.scalar_type() == compute;
  const c10::DeviceIndex device = out.device().index();
  const std::vector<std::string> candidates = row_candidates(runtime::device_info(device), vectorized);
  const std::string shape_class = std::string(name) + (log ? " log " : " ") + c10::toString(first.scalar_type()) +
                                  (shape.inner == 1 ? " rows " : " strided ") + tune::bucket("D", shape.dim, 16, 8192) +
                                  " " + tune::bucket("rows", shape.outer * shape.inner, 16, 4096);
  const std::string candidate = tune::choose(device, "softmax", shape_class, candidates,
                                             out.numel() >= kTunedMinRowElements, [&](const std::string& c) {
                                               const at::Tensor y = at::empty_like(result);
                                               launch_candidate(name, c, y, inputs, shape, log, vectorized);
                                               return y;
                                             });
  launch_candidate(name, candidate, result, inputs, shape, log, vectorized);
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
