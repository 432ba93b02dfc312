// Matrix products: mm, addmm, bmm, baddbmm, addbmm, addmv, dot and vdot, all on the GEMM launcher
// with operands passed as strided 3-D views (linear, matmul, einsum and tensordot reach these).
#include "aten/Structured.h"
#include "launch/Gemm.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/_addmm_activation_meta.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/addmv_meta.h>
#include <ATen/ops/baddbmm_meta.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linalg_cross_meta.h>
#include <ATen/ops/mm_meta.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/roll.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using ScalarRef = const at::Scalar&;

void check_same_dtype(const Tensor& m1, const Tensor& m2) {
  TORCH_CHECK(m1.scalar_type() == m2.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
              m1.scalar_type(), " != ", m2.scalar_type());
}

Tensor as_batch(const Tensor& t) {
  return t.dim() == 3 ? t : t.unsqueeze(0);
}

// A product's alpha or beta as the CPU takes it: converted to an integral out's dtype (an int64
// addmm with beta 0.5 ignores self: 0.5 truncates to 0), a value out of its range an error.
at::Scalar scalar_like_cpu(ScalarRef s, const Tensor& out) {
  if (!c10::isIntegralType(out.scalar_type(), /*includeBool=*/false)) return s;
  return AT_DISPATCH_INTEGRAL_TYPES(out.scalar_type(), "matrix product", [&] { return at::Scalar(s.to<scalar_t>()); });
}

// out = alpha * a @ b + beta * d, with d broadcast to out's shape (beta 0: d is ignored).
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& d, ScalarRef alpha, ScalarRef beta) {
  for (const Tensor* t : {&a, &b, &d}) {
    TORCH_CHECK(!t->defined() || t->device() == out.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ", out.device(), " and ",
                t->device(), "!");
  }
  const c10::ScalarType type = out.scalar_type();
  TORCH_CHECK(type != at::kBool && type != at::kUInt16 && type != at::kUInt32 && type != at::kUInt64,
              "foo-cl: matrix products of ", type, " tensors are not supported (nor on the CPU)");
  const Tensor d3 = d.defined() ? as_batch(d.expand(out.sizes())) : Tensor();
  launch::launch_gemm(as_batch(out), as_batch(a), as_batch(b), d3, scalar_like_cpu(alpha, out),
                      scalar_like_cpu(beta, out));
}

Tensor& addbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, ScalarRef beta, ScalarRef alpha,
                   Tensor& out) {
  TORCH_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "batch1 and batch2 must be 3D tensors");
  TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  // The sum over batches is one product: [M, B*K] @ [B*K, N].
  const int64_t batches = batch1.size(0), m = batch1.size(1), k = batch1.size(2), n = batch2.size(2);
  const Tensor a = batch1.permute({1, 0, 2}).reshape({m, batches * k});
  const Tensor b = batch2.reshape({batches * k, n});
  return at::addmm_out(out, self, a, b, beta, alpha);
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, ScalarRef beta, ScalarRef alpha) {
  Tensor out = at::empty({0}, self.options());
  return addbmm_out(self, batch1, batch2, beta, alpha, out);
}

Tensor& addbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2, ScalarRef beta, ScalarRef alpha) {
  return addbmm_out(self, batch1, batch2, beta, alpha, self);
}

// dot and vdot (`name`), one product of real operands; complex ones (vdot conjugates the first) run
// through the CPU fallback, as other complex products do.
Tensor dot(const char* name, const Tensor& self, const Tensor& other) {
  if (self.is_complex() || other.is_complex()) return detail::run_fallback_on(name, self, other)[0].toTensor();
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
              other.numel(), " elements respectively");
  Tensor out = at::empty({}, self.options());
  gemm(out.view({1, 1}), self.unsqueeze(0), other.unsqueeze(1), Tensor(), 1, 0);
  return out;
}

// The cross product of 3-vectors along `dim`: component i is a[i+1] b[i+2] - a[i+2] b[i+1].
void cross_kernel(at::meta::structured_linalg_cross& op, const Tensor& self, const Tensor& other, int64_t dim) {
  const Tensor& out = op.maybe_get_output(0);
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  dim = at::maybe_wrap_dim(dim, out.dim());
  const Tensor a = self.expand(out.sizes()), b = other.expand(out.sizes());
  out.copy_(a.roll(-1, dim) * b.roll(-2, dim) - a.roll(-2, dim) * b.roll(-1, dim));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured_with_self<at::meta::structured_linalg_cross, const Tensor&, int64_t>(
      m, "linalg_cross", nullptr, "linalg_cross.out", cross_kernel);
  using Mm = at::meta::structured_mm;
  register_structured_with_self<Mm, const Tensor&>(
      m, "mm", nullptr, "mm.out", [](Mm& op, const Tensor& self, const Tensor& mat2) {
        check_same_dtype(self, mat2);
        gemm(op.maybe_get_output(0), self, mat2, Tensor(), 1, 0);
      });
  using Addmm = at::meta::structured_addmm;
  register_structured_with_self<Addmm, const Tensor&, const Tensor&, ScalarRef, ScalarRef>(
      m, "addmm", "addmm_", "addmm.out",
      [](Addmm& op, const Tensor& self, const Tensor& mat1, const Tensor& mat2, ScalarRef beta, ScalarRef alpha) {
        gemm(op.maybe_get_output(0), mat1, mat2, self, alpha, beta);
      });
  // addmm with a ReLU or GELU after it, as the Transformer layers' inference path calls it (exact GELU, as on CPU).
  using AddmmActivation = at::meta::structured__addmm_activation;
  register_structured_with_self<AddmmActivation, const Tensor&, const Tensor&, ScalarRef, ScalarRef, bool>(
      m, "_addmm_activation", nullptr, "_addmm_activation.out",
      [](AddmmActivation& op, const Tensor& self, const Tensor& mat1, const Tensor& mat2, ScalarRef beta,
         ScalarRef alpha, bool use_gelu) {
        Tensor out = op.maybe_get_output(0);
        gemm(out, mat1, mat2, self, alpha, beta);
        use_gelu ? at::gelu_(out) : at::relu_(out);
      });
  using Bmm = at::meta::structured_bmm;
  register_structured_with_self<Bmm, const Tensor&>(
      m, "bmm", nullptr, "bmm.out", [](Bmm& op, const Tensor& self, const Tensor& mat2) {
        check_same_dtype(self, mat2);
        gemm(op.maybe_get_output(0), self, mat2, Tensor(), 1, 0);
      });
  using Baddbmm = at::meta::structured_baddbmm;
  register_structured_with_self<Baddbmm, const Tensor&, const Tensor&, ScalarRef, ScalarRef>(
      m, "baddbmm", "baddbmm_", "baddbmm.out",
      [](Baddbmm& op, const Tensor& self, const Tensor& b1, const Tensor& b2, ScalarRef beta, ScalarRef alpha) {
        gemm(op.maybe_get_output(0), b1, b2, self, alpha, beta);
      });
  using Addmv = at::meta::structured_addmv;
  register_structured_with_self<Addmv, const Tensor&, const Tensor&, ScalarRef, ScalarRef>(
      m, "addmv", "addmv_", "addmv.out",
      [](Addmv& op, const Tensor& self, const Tensor& mat, const Tensor& vec, ScalarRef beta, ScalarRef alpha) {
        const Tensor& out = op.maybe_get_output(0);
        gemm(out.unsqueeze(1), mat, vec.unsqueeze(1), self.expand(out.sizes()).unsqueeze(1), alpha, beta);
      });
  m.impl("addbmm", addbmm);
  m.impl("addbmm_", addbmm_);
  m.impl("addbmm.out", addbmm_out);
  m.impl("dot", [](const Tensor& self, const Tensor& other) { return dot("dot", self, other); });
  m.impl("vdot", [](const Tensor& self, const Tensor& other) { return dot("vdot", self, other); });
}

}  // namespace foo_cl::aten
