// Scan launches: one work-item per row.
#include "launch/Scan.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/WrapDimUtils.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {
namespace {

const char* scan_option(Scan scan) {
  switch (scan) {
    case Scan::kCumsum:
      return "-DCUMSUM";
    case Scan::kCumprod:
      return "-DCUMPROD";
    case Scan::kLogcumsumexp:
      return "-DLOGCUMSUMEXP";
    case Scan::kCummax:
      return "-DCUMMAX";
    case Scan::kCummin:
      return "-DCUMMIN";
  }
  TORCH_INTERNAL_ASSERT(false, "unknown scan");
}

}  // namespace

void launch_scan(Scan scan, const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, int64_t dim) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const at::Tensor input = self.contiguous();
  const at::Tensor result = dense_output(out);
  const at::Tensor where = indices.defined() ? dense_output(indices) : indices;
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
  const std::string options = dtype_option("IN0", input.scalar_type()) + dtype_option("OUT", out_type) +
                              compute_option(compute_type(out_type)) + scan_option(scan);
  KernelCall call(out.device().index(), "scan/scan", "scan_contig", options);
  call.buffer(result.const_data_ptr()).buffer(or_unused(where, result));
  call.buffer(input.const_data_ptr());
  call.value(static_cast<uint64_t>(outer)).value(static_cast<uint64_t>(size)).value(static_cast<uint64_t>(inner));
  call.launch(outer * inner);
  copy_back(result, out);
  if (where.defined()) copy_back(where, indices);
}

}  // namespace foo_cl::launch
