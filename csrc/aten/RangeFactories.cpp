// Factories whose values follow from the index: arange and linspace (PyTorch's own argument checks
// and sizing, with foo kernels behind their dispatch stubs), logspace, and eye.
#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/TensorIterator.h>
#include <ATen/native/RangeFactories.h>
#include <ATen/ops/arange_native.h>
#include <ATen/ops/diagonal.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/linspace_native.h>
#include <ATen/ops/pow.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

// CPU's accumulate types: integers and float64 in double (float where the device has no fp64).
c10::ScalarType accumulate_type(const at::TensorIterator& iter) {
  const c10::ScalarType out = iter.dtype(0);
  if (out == c10::kFloat || out == c10::kHalf || out == c10::kBFloat16) return c10::kFloat;
  return runtime::device_info(iter.device(0).index()).has_fp64 ? c10::kDouble : c10::kFloat;
}

launch::KernelCall range_kernel(at::TensorIterator& iter, const char* name, c10::ScalarType acc) {
  const std::string options = launch::dtype_option("OUT", iter.dtype(0)) + launch::dtype_option("ACC", acc) +
                              launch::index_option(iter.numel());
  launch::KernelCall call(iter.device(0).index(), "factory/range", name, options);
  call.buffer(iter.data_ptr(0));
  return call;
}

void arange_kernel(at::TensorIterator& iter, const at::Scalar& start, const at::Scalar& size, const at::Scalar& step) {
  if (iter.numel() == 0) return;
  const c10::DeviceGuard guard(iter.device(0));
  const auto acc = accumulate_type(iter);
  launch::KernelCall call = range_kernel(iter, "arange_contig", acc);
  call.scalar(start, acc);
  call.scalar(step, acc);
  call.count(size.toLong()).launch(size.toLong());
}

void linspace_kernel(at::TensorIterator& iter, const at::Scalar& start, const at::Scalar& end, int64_t steps) {
  if (iter.numel() == 0) return;
  const c10::DeviceGuard guard(iter.device(0));
  const auto acc = accumulate_type(iter);
  // As CPU: the step of an integer linspace is fractional; start and end are first cast to the dtype.
  const bool integral = c10::isIntegralType(iter.dtype(0), /*includeBool=*/true);
  const double first = integral ? static_cast<double>(start.toLong()) : start.toDouble();
  const double last = integral ? static_cast<double>(end.toLong()) : end.toDouble();
  launch::KernelCall call = range_kernel(iter, "linspace_contig", acc);
  call.scalar(first, acc);
  call.scalar(last, acc);
  call.scalar((last - first) / static_cast<double>(steps - 1), acc);
  call.count(steps).launch(steps);
}

at::Tensor& arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, at::Tensor& out) {
  return at::native::arange_out(start, end, step, out);
}

at::Tensor& linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  return at::native::linspace_out(start, end, steps, out);
}

// base^linspace(start, end), computed in double as CPU does, then cast to out's dtype.
at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (out.numel() != steps) out.resize_({steps});
  const bool fp64 = runtime::device_info(out.device().index()).has_fp64;
  const at::Tensor exponents = at::linspace(start, end, steps, out.options().dtype(fp64 ? c10::kDouble : c10::kFloat));
  out.copy_(at::pow(base, exponents));
  return out;
}

at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  out.resize_({n, m});
  out.zero_();
  out.diagonal().fill_(1);
  return out;
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) {
  return eye_m_out(n, n, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("arange.start_out", arange_out);
  m.impl("linspace.out", linspace_out);
  m.impl("logspace.out", logspace_out);
  m.impl("eye.out", eye_out);
  m.impl("eye.m_out", eye_m_out);
}

}  // namespace foo_cl::aten

// PyTorch's arange_out and linspace_out call these stubs with the output's device type.
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(arange_stub, &foo_cl::aten::arange_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(linspace_stub, &foo_cl::aten::linspace_kernel)
}  // namespace at::native
