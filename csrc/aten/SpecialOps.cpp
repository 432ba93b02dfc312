// Special functions: the gamma family (lgamma, digamma, polygamma, Hurwitz zeta, the regularized
// incomplete gamma functions), Bessel, Airy and
// error-function relatives, orthogonal polynomials, and the log-space helpers of torch.special,
// each one line naming its kernels_cl/ program (ports of ATen/native/Math.h), behind PyTorch's
// structured meta functions.
#include "aten/Pointwise.h"

#include <ATen/ops/digamma_meta.h>
#include <ATen/ops/i0_meta.h>
#include <ATen/ops/igamma_meta.h>
#include <ATen/ops/igammac_meta.h>
#include <ATen/ops/lgamma_meta.h>
#include <ATen/ops/logaddexp2_meta.h>
#include <ATen/ops/polygamma_meta.h>
#include <ATen/ops/special_airy_ai_meta.h>
#include <ATen/ops/special_bessel_j0_meta.h>
#include <ATen/ops/special_bessel_j1_meta.h>
#include <ATen/ops/special_bessel_y0_meta.h>
#include <ATen/ops/special_bessel_y1_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_t_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_u_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_v_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_w_meta.h>
#include <ATen/ops/special_entr_meta.h>
#include <ATen/ops/special_erfcx_meta.h>
#include <ATen/ops/special_hermite_polynomial_h_meta.h>
#include <ATen/ops/special_hermite_polynomial_he_meta.h>
#include <ATen/ops/special_i0e_meta.h>
#include <ATen/ops/special_i1_meta.h>
#include <ATen/ops/special_i1e_meta.h>
#include <ATen/ops/special_laguerre_polynomial_l_meta.h>
#include <ATen/ops/special_legendre_polynomial_p_meta.h>
#include <ATen/ops/special_log_ndtr_meta.h>
#include <ATen/ops/special_modified_bessel_i0_meta.h>
#include <ATen/ops/special_modified_bessel_i1_meta.h>
#include <ATen/ops/special_modified_bessel_k0_meta.h>
#include <ATen/ops/special_modified_bessel_k1_meta.h>
#include <ATen/ops/special_ndtri_meta.h>
#include <ATen/ops/special_scaled_modified_bessel_k0_meta.h>
#include <ATen/ops/special_scaled_modified_bessel_k1_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_t_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_u_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_v_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_w_meta.h>
#include <ATen/ops/special_spherical_bessel_j0_meta.h>
#include <ATen/ops/special_xlog1py_meta.h>
#include <ATen/ops/special_zeta_meta.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using Polygamma = at::meta::structured_polygamma;

// polygamma(n, self): the order comes first, so the meta object is built here; n is the kernel's s0.
Tensor polygamma(int64_t n, const Tensor& self) {
  detail::FunctionalOp<Polygamma> op;
  op.meta(n, self);
  launch::launch_pointwise(op, "unary/polygamma", {n});
  return std::move(op.outputs[0]);
}

Tensor& polygamma_out(int64_t n, const Tensor& self, Tensor& out) {
  detail::GivenOutputOp<Polygamma, false> op(out);
  op.meta(n, self);
  launch::launch_pointwise(op, "unary/polygamma", {n});
  op.finish();
  return out;
}

}  // namespace

// "special_<name>" and "special_<name>.out", for ops without an in-place variant.
#define FOO_SPECIAL_UNARY(m, op, key)                                                                  \
  register_structured<at::meta::structured_##op>(m, #op, nullptr, #op ".out",                         \
                                                 pointwise<at::meta::structured_##op>(key))
#define FOO_SPECIAL_BINARY(m, op, key)                                                                  \
  register_structured<at::meta::structured_##op, const Tensor&>(m, #op, nullptr, #op ".out",            \
                                                                pointwise<at::meta::structured_##op, const Tensor&>(key))

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  FOO_STRUCTURED_UNARY(m, lgamma, "unary/lgamma");
  FOO_STRUCTURED_UNARY(m, digamma, "unary/digamma");
  FOO_STRUCTURED_UNARY(m, i0, "unary/i0");
  FOO_STRUCTURED_BINARY(m, igamma, "binary/igamma");
  FOO_STRUCTURED_BINARY(m, igammac, "binary/igammac");
  m.impl("polygamma", polygamma);
  m.impl("polygamma.out", polygamma_out);
  FOO_SPECIAL_BINARY(m, special_zeta, "binary/zeta");
  FOO_SPECIAL_UNARY(m, special_i0e, "unary/i0e");
  FOO_SPECIAL_UNARY(m, special_i1, "unary/i1");
  FOO_SPECIAL_UNARY(m, special_i1e, "unary/i1e");
  FOO_SPECIAL_UNARY(m, special_erfcx, "unary/erfcx");
  FOO_SPECIAL_UNARY(m, special_log_ndtr, "unary/log_ndtr");
  FOO_SPECIAL_UNARY(m, special_ndtri, "unary/ndtri");
  FOO_SPECIAL_UNARY(m, special_entr, "unary/entr");
  FOO_SPECIAL_BINARY(m, special_xlog1py, "binary/xlog1py");
  register_structured<at::meta::structured_logaddexp2, const Tensor&>(
      m, "logaddexp2", nullptr, "logaddexp2.out", pointwise<at::meta::structured_logaddexp2, const Tensor&>("binary/logaddexp2"));

  FOO_SPECIAL_UNARY(m, special_airy_ai, "unary/airy_ai");
  FOO_SPECIAL_UNARY(m, special_bessel_j0, "unary/bessel_j0");
  FOO_SPECIAL_UNARY(m, special_bessel_j1, "unary/bessel_j1");
  FOO_SPECIAL_UNARY(m, special_bessel_y0, "unary/bessel_y0");
  FOO_SPECIAL_UNARY(m, special_bessel_y1, "unary/bessel_y1");
  FOO_SPECIAL_UNARY(m, special_modified_bessel_i0, "unary/modified_bessel_i0");
  FOO_SPECIAL_UNARY(m, special_modified_bessel_i1, "unary/modified_bessel_i1");
  FOO_SPECIAL_UNARY(m, special_modified_bessel_k0, "unary/modified_bessel_k0");
  FOO_SPECIAL_UNARY(m, special_modified_bessel_k1, "unary/modified_bessel_k1");
  FOO_SPECIAL_UNARY(m, special_scaled_modified_bessel_k0, "unary/scaled_modified_bessel_k0");
  FOO_SPECIAL_UNARY(m, special_scaled_modified_bessel_k1, "unary/scaled_modified_bessel_k1");
  FOO_SPECIAL_UNARY(m, special_spherical_bessel_j0, "unary/spherical_bessel_j0");
  FOO_SPECIAL_BINARY(m, special_chebyshev_polynomial_t, "binary/chebyshev_polynomial_t");
  FOO_SPECIAL_BINARY(m, special_chebyshev_polynomial_u, "binary/chebyshev_polynomial_u");
  FOO_SPECIAL_BINARY(m, special_chebyshev_polynomial_v, "binary/chebyshev_polynomial_v");
  FOO_SPECIAL_BINARY(m, special_chebyshev_polynomial_w, "binary/chebyshev_polynomial_w");
  FOO_SPECIAL_BINARY(m, special_shifted_chebyshev_polynomial_t, "binary/shifted_chebyshev_polynomial_t");
  FOO_SPECIAL_BINARY(m, special_shifted_chebyshev_polynomial_u, "binary/shifted_chebyshev_polynomial_u");
  FOO_SPECIAL_BINARY(m, special_shifted_chebyshev_polynomial_v, "binary/shifted_chebyshev_polynomial_v");
  FOO_SPECIAL_BINARY(m, special_shifted_chebyshev_polynomial_w, "binary/shifted_chebyshev_polynomial_w");
  FOO_SPECIAL_BINARY(m, special_hermite_polynomial_h, "binary/hermite_polynomial_h");
  FOO_SPECIAL_BINARY(m, special_hermite_polynomial_he, "binary/hermite_polynomial_he");
  FOO_SPECIAL_BINARY(m, special_laguerre_polynomial_l, "binary/laguerre_polynomial_l");
  FOO_SPECIAL_BINARY(m, special_legendre_polynomial_p, "binary/legendre_polynomial_p");
}

}  // namespace foo_cl::aten
