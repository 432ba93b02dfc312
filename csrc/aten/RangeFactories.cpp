// Factories whose values follow from the index: arange and linspace (PyTorch's own argument checks
// and sizing, with foo kernels behind their dispatch stubs), logspace, and eye.
#include "launch/Dtypes.h"
#include "launch/Factory.h"

#include <ATen/TensorIterator.h>
#include <ATen/native/RangeFactories.h>
#include <ATen/ops/arange_native.h>
#include <ATen/ops/diagonal.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/linspace_native.h>
#include <ATen/ops/pow.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

void arange_kernel(at::TensorIterator& iter, const at::Scalar& start, const at::Scalar& size, const at::Scalar& step) {
  launch::launch_arange(iter, start, step, size.toLong());
}

void linspace_kernel(at::TensorIterator& iter, const at::Scalar& start, const at::Scalar& end, int64_t steps) {
  launch::launch_linspace(iter, start, end, steps);
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
  const at::Tensor exponents =
      at::linspace(start, end, steps, out.options().dtype(launch::widest_float_type(out.device().index())));
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
