// Cumulative operators along one dim: cumsum, cumprod, and the helpers behind cummax and cummin
// (launch/Scan).
#include "aten/Structured.h"
#include "launch/Scan.h"

#include <ATen/ops/cumprod_meta.h>
#include <ATen/ops/cumsum_meta.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

void cum_extremum_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim, launch::Scan scan) {
  launch::launch_scan(scan, self.to(values.scalar_type()), values, indices, dim);
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
  m.impl("_cummax_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, launch::Scan::kCummax);
  });
  m.impl("_cummin_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, launch::Scan::kCummin);
  });
}

}  // namespace foo_cl::aten
