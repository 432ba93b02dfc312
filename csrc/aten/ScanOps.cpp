// Cumulative operators along one dim: cumsum, cumprod, and the helpers behind cummax and cummin
// (kernels_cl/scan/scan.cl), on contiguous [outer, dim, inner] views.
#include "aten/Structured.h"
#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/cumprod_meta.h>
#include <ATen/ops/cumsum_meta.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// Scans `self` into `out` (and `indices` for cummax/cummin), through contiguous temporaries.
void scan(const Tensor& self, const Tensor& out, const Tensor& indices, int64_t dim, const char* variant) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const Tensor input = self.contiguous();
  const Tensor result = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  const Tensor where = !indices.defined() || indices.is_contiguous() ? indices : at::empty(indices.sizes(), indices.options());
  int64_t outer = 1, size = 1, inner = 1;
  if (input.dim() > 0) {
    dim = c10::maybe_wrap_dim(dim, input.dim());
    for (int64_t d = 0; d < dim; ++d) outer *= input.size(d);
    size = input.size(dim);
    for (int64_t d = dim + 1; d < input.dim(); ++d) inner *= input.size(d);
  }
  // NOTE: a work-item walks a whole row, which a driver that ends loops early would cut short.
  const int64_t limit = runtime::device_info(out.device().index()).loop_iteration_limit;
  TORCH_CHECK(limit == 0 || size < limit, "foo-cl: cumulative ops along a dim of ", size, " elements is not supported on ",
              out.device(), ", whose OpenCL driver ends a work-item's loops after ", limit, " iterations");
  const c10::ScalarType out_type = out.scalar_type();
  const c10::ScalarType compute = launch::compute_type(out_type);
  const std::string options = launch::dtype_option("IN0", input.scalar_type()) + launch::dtype_option("OUT", out_type) +
                              launch::compute_option(compute) + variant;
  launch::KernelCall call(out.device().index(), "scan/scan", "scan_contig", options);
  call.buffer(result.const_data_ptr()).buffer(where.defined() ? where.const_data_ptr() : result.const_data_ptr());
  call.buffer(input.const_data_ptr());
  call.value(static_cast<cl_ulong>(outer)).value(static_cast<cl_ulong>(size)).value(static_cast<cl_ulong>(inner));
  call.launch(outer * inner);
  if (!result.is_same(out)) out.copy_(result);
  if (where.defined() && !where.is_same(indices)) indices.copy_(where);
}

void cum_extremum_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim, const char* variant) {
  scan(self.to(values.scalar_type()), values, indices, dim, variant);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using Cumsum = at::meta::structured_cumsum;
  register_structured_with_self<Cumsum, int64_t, std::optional<at::ScalarType>>(
      m, "cumsum", "cumsum_", "cumsum.out",
      [](Cumsum& op, const Tensor& self, int64_t dim, std::optional<at::ScalarType>) {
        scan(self, op.maybe_get_output(0), Tensor(), dim, "-DCUMSUM");
      });
  using Cumprod = at::meta::structured_cumprod;
  register_structured_with_self<Cumprod, int64_t, std::optional<at::ScalarType>>(
      m, "cumprod", "cumprod_", "cumprod.out",
      [](Cumprod& op, const Tensor& self, int64_t dim, std::optional<at::ScalarType>) {
        scan(self, op.maybe_get_output(0), Tensor(), dim, "-DCUMPROD");
      });
  m.impl("_cummax_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, "-DCUMMAX");
  });
  m.impl("_cummin_helper", [](const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
    cum_extremum_helper(self, values, indices, dim, "-DCUMMIN");
  });
}

}  // namespace foo_cl::aten
