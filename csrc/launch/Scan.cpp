// Scan launches: a work-item per row, or per slice of few long rows.
#include "launch/Scan.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <algorithm>

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
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
  // Slices of few long rows, for the scans whose partial results combine (see scan.cl): enough
  // work-items for the device, each over kMinChunk / 2 elements or more and at most kMaxSlices per
  // row (a slice folds the totals of those before it), and on a driver that ends loops early
  // (a work-item walks a whole slice) none longer than half its limit.
  constexpr int64_t kMinChunk = 4096, kMaxSlices = 1024, kScanBlock = 256;  // kScanBlock: a sum's blocks
  const runtime::DeviceInfo& info = runtime::device_info(out.device().index());
  const int64_t rows = outer * inner, limit = info.loop_iteration_limit;
  const int64_t wanted = static_cast<int64_t>(std::max<uint32_t>(info.compute_units, 1)) * (info.cpu_class ? 4 : 256);
  const bool sliceable = scan == Scan::kCumsum || scan == Scan::kCumprod || scan == Scan::kLogcumsumexp;
  int64_t slices = 1;
  if (sliceable) {
    slices = std::max<int64_t>(
        1, std::min({(wanted + rows - 1) / rows, (size + kMinChunk - 1) / kMinChunk, kMaxSlices}));
    if (limit > 0) slices = std::max(slices, (size + limit / 2 - 1) / (limit / 2));
  }
  const c10::ScalarType out_type = out.scalar_type(), compute = compute_type(out_type);
  const std::string options = dtype_option("IN0", input.scalar_type()) + dtype_option("OUT", out_type) +
                              compute_option(compute) + scan_option(scan) +
                              " -DFOO_SCAN_BLOCK=" + std::to_string(kScanBlock);
  if (scan == Scan::kCumsum && inner >= 8 && c10::isFloatingType(compute) && limit == 0) {
    // Floating sums down columns: eight neighbouring columns a work-item (scan_columns).
    const int64_t units = outer * ((inner + 7) / 8);
    KernelCall call(out.device().index(), "scan/scan", "scan_columns", options);
    call.buffer(result.const_data_ptr()).buffer(input.const_data_ptr());
    call.value(static_cast<uint64_t>(outer)).value(static_cast<uint64_t>(size)).value(static_cast<uint64_t>(inner));
    call.value(static_cast<uint64_t>(units)).launch_loops(units);
    copy_back(result, out);
    return;
  }
  const int64_t chunk = std::max<int64_t>((size + slices - 1) / slices, 1);
  slices = (size + chunk - 1) / chunk;  // no empty slice
  // A work-item's loop turns: its slice, the blocks of a sum's slice, the totals before it.
  const int64_t turns = chunk + (scan == Scan::kCumsum ? chunk / kScanBlock : 0) + slices;
  TORCH_CHECK(limit == 0 || turns < limit, "foo-cl: cumulative ops along a dim of ", size,
              " elements is not supported on ", out.device(), ", whose OpenCL driver ends a work-item's loops after ",
              limit, " iterations");
  // A slice's total: a compute value, and for sums its compensation too.
  const at::Tensor partial =
      slices > 1 ? at::empty({rows * (slices - 1) * 2 * static_cast<int64_t>(c10::elementSize(compute))},
                             input.options().dtype(at::kByte))
                 : at::Tensor();
  const auto shape_args = [&](KernelCall& call) {
    call.value(static_cast<uint64_t>(outer)).value(static_cast<uint64_t>(size)).value(static_cast<uint64_t>(inner));
    call.value(static_cast<uint64_t>(slices)).value(static_cast<uint64_t>(chunk));
  };
  if (partial.defined()) {
    KernelCall totals(out.device().index(), "scan/scan", "scan_totals", options);
    totals.buffer(input.const_data_ptr());
    shape_args(totals);
    totals.buffer(partial.const_data_ptr());
    totals.launch_loops(rows * (slices - 1));
  }
  KernelCall call(out.device().index(), "scan/scan", "scan_contig", options);
  call.buffer(result.const_data_ptr()).buffer(or_unused(where, result));
  call.buffer(input.const_data_ptr());
  shape_args(call);
  call.buffer(or_unused(partial, result));
  call.launch_loops(rows * slices);
  copy_back(result, out);
  if (where.defined()) copy_back(where, indices);
}

}  // namespace foo_cl::launch
