// Sorted folds: a stable sort of the row keys, then one work-item per run of equal keys.
#include "launch/Index.h"

#include "launch/Launch.h"
#include "launch/Sort.h"
#include "runtime/Device.h"

#include <ATen/ops/empty_like.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {

bool has_atomics_for(const at::Tensor& out) {
  return out.element_size() < 8 || runtime::device_info(out.device().index()).has_int64_atomics;
}

const char* fold_option(Fold fold) {
  switch (fold) {
    case Fold::kSum:
      return "-DFOLD_SUM ";
    case Fold::kProd:
      return "-DFOLD_PROD ";
    case Fold::kAmax:
      return "-DFOLD_AMAX ";
    case Fold::kAmin:
      return "-DFOLD_AMIN ";
    default:
      return "-DFOLD_LAST ";
  }
}

void launch_fold_sorted(const at::Tensor& out, const at::Tensor& keys, const at::Tensor& values, Fold fold) {
  TORCH_INTERNAL_ASSERT(out.dim() == 3 && values.dim() == 3 && out.is_contiguous() && values.is_contiguous() &&
                        keys.scalar_type() == at::kLong && values.scalar_type() == out.scalar_type() &&
                        values.size(0) == out.size(0) && values.size(1) == keys.numel() &&
                        values.size(2) == out.size(2));
  const int64_t m = keys.numel();
  if (m == 0 || values.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const at::Tensor rows = keys.reshape({1, m}).contiguous();
  const at::Tensor sorted = at::empty_like(rows), order = at::empty_like(rows);
  launch_sort_rows(rows, sorted, order, /*descending=*/false);
  const c10::ScalarType type = out.scalar_type();
  const c10::ScalarType acc = type == at::kBool ? at::kLong : compute_type(type);
  const int64_t n = values.numel();
  KernelCall(out.device().index(), "index/fold_sorted", "fold_sorted",
             dtype_option("DT", type) + dtype_option("ACC", acc) + fold_option(fold) + index_option(n))
      .buffer(out.data_ptr())
      .buffer(values.const_data_ptr())
      .buffer(sorted.const_data_ptr())
      .buffer(order.const_data_ptr())
      .value(static_cast<uint64_t>(out.size(1)))
      .value(static_cast<uint64_t>(m))
      .value(static_cast<uint64_t>(out.size(2)))
      .count(n)
      .launch(n);
}

}  // namespace foo_cl::launch
