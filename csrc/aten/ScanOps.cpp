// Cumulative operators along one dim: cumsum, cumprod, logcumsumexp, and the helpers behind cummax
// and cummin (launch/Scan).
#include "aten/Structured.h"
#include "launch/Scan.h"

#include <ATen/ops/cumprod_meta.h>
#include <ATen/ops/cumsum_meta.h>
#include <ATen/ops/empty_like.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

void cum_extremum_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim, launch::Scan scan) {
  launch::launch_scan(scan, self.to(values.scalar_type()), values, indices, dim);
}

Tensor& logcumsumexp_out(const Tensor& self, int64_t dim, Tensor& out) {
  dim = c10::maybe_wrap_dim(dim, self.dim());  // as CPU, also for an empty tensor
  if (self.is_complex()) {  // no complex scan kernel
    detail::run_fallback_on("_logcumsumexp.out", self, dim, out);
    return out;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self.scalar_type()), "\"logcumsumexp_out_cpu\" not implemented for '",
                              c10::toString(self.scalar_type()), "'");
  at::native::resize_output(out, self.sizes());
  launch::launch_scan(launch::Scan::kLogcumsumexp, self, out, Tensor(), dim);
  return out;
}

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return logcumsumexp_out(self, dim, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using Cumsum = at::meta::structured_cumsum;
  register_structured_with_self<Cumsum, int64_t, std::optional<at::ScalarType>>(
      m, "cumsum", "cumsum_", "cumsum.out",
      [](Cumsum& op, const Tensor& self, int64_t dim, std::optional<at::ScalarType>) {
        launch::launch_scan(launch::Scan::kCumsum, self, op.maybe_get_output(0), Tensor(), dim);
      });
  using Cumprod = at::meta::structured_cumprod;
  register_structured_with_self<Cumprod, int64_t, std::optional<at::ScalarType>>(
      m, "cumprod", "cumprod_", "cumprod.out",
      [](Cumprod& op, const Tensor& self, int64_t dim, std::optional<at::ScalarType>) {
        launch::launch_scan(launch::Scan::kCumprod, self, op.maybe_get_output(0), Tensor(), dim);
      });
  m.impl("_logcumsumexp", logcumsumexp);
  m.impl("_logcumsumexp.out", logcumsumexp_out);
  m.impl("_cummax_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, launch::Scan::kCummax);
  });
  m.impl("_cummin_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, launch::Scan::kCummin);
  });
}

}  // namespace foo_cl::aten
