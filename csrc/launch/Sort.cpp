// Sort launches: padding to a power of two, local-memory chunks, then one launch per wide stage.
#include "launch/Sort.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {
namespace {

uint64_t next_power_of_two(uint64_t n) {
  uint64_t p = 2;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

void launch_sort_rows(const at::Tensor& keys, const at::Tensor& values, const at::Tensor& positions, bool descending) {
  TORCH_INTERNAL_ASSERT(keys.dim() == 2 && keys.is_contiguous() && values.is_contiguous() && positions.is_contiguous());
  const int64_t rows = keys.size(0), n = keys.size(1), m = values.size(1);
  if (rows == 0 || m == 0) return;
  const c10::DeviceGuard guard(keys.device());
  const c10::DeviceIndex device = keys.device().index();
  const runtime::DeviceInfo& info = runtime::device_info(device);

  const uint64_t padded = next_power_of_two(static_cast<uint64_t>(n));
  const c10::ScalarType compute = compute_type(keys.scalar_type());
  // A chunk of CHUNK elements is sorted by CHUNK / 2 work-items in local memory.
  const uint64_t entry_bytes = c10::elementSize(compute) + sizeof(int64_t);
  size_t items = 256;  // a power of two, as the bitonic network needs
  while (items > info.max_work_group_size) items /= 2;
  uint64_t chunk = std::min<uint64_t>(padded, 2 * items);
  while (chunk > 2 && chunk * entry_bytes > info.local_mem_size / 2) chunk /= 2;

  const int64_t total = rows * static_cast<int64_t>(padded);
  std::string options = dtype_option("KEY", keys.scalar_type()) + index_option(total) + "-DCHUNK=" +
                        std::to_string(chunk) + " ";
  if (c10::isFloatingType(keys.scalar_type())) options += "-DCOMPUTE_IS_FLOAT_KEY ";
  if (descending) options += "-DDESCENDING ";

  const at::Tensor work_keys = at::empty({total}, keys.options().dtype(compute));
  const at::Tensor work_pos = at::empty({total}, keys.options().dtype(c10::kLong));
  KernelCall(device, "sort/bitonic", "sort_init", options)
      .buffer(keys.data_ptr())
      .buffer(work_keys.data_ptr())
      .buffer(work_pos.data_ptr())
      .value(static_cast<uint64_t>(n))
      .value(padded)
      .count(total)
      .launch(total);

  const size_t groups = static_cast<size_t>(total / chunk);
  auto sort_local = [&](uint64_t k_first, uint64_t k_last) {
    KernelCall(device, "sort/bitonic", "sort_local", options)
        .buffer(work_keys.data_ptr())
        .buffer(work_pos.data_ptr())
        .value(padded)
        .value(k_first)
        .value(k_last)
        .launch_groups(groups, chunk / 2);
  };
  sort_local(2, chunk);
  for (uint64_t k = 2 * chunk; k <= padded; k <<= 1) {
    for (uint64_t j = k / 2; j >= chunk; j >>= 1) {
      KernelCall(device, "sort/bitonic", "sort_global", options)
          .buffer(work_keys.data_ptr())
          .buffer(work_pos.data_ptr())
          .value(padded)
          .value(k)
          .value(j)
          .value(static_cast<uint64_t>(total / 2))
          .launch(total / 2);
    }
    sort_local(k, k);
  }

  KernelCall(device, "sort/bitonic", "sort_finish", options)
      .buffer(work_keys.data_ptr())
      .buffer(work_pos.data_ptr())
      .buffer(values.data_ptr())
      .buffer(positions.data_ptr())
      .value(padded)
      .value(static_cast<uint64_t>(m))
      .value(static_cast<uint64_t>(rows * m))
      .launch(rows * m);
}

void launch_searchsorted(const at::Tensor& sorted, const at::Tensor& input, bool right, const at::Tensor& out) {
  const int64_t n = input.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(input.device());
  const at::Tensor result = dense_output(out);
  std::string options =
      dtype_option("DT", input.scalar_type()) + dtype_option("OUT", out.scalar_type()) + index_option(n);
  if (right) options += "-DRIGHT ";
  KernelCall(input.device().index(), "sort/searchsorted", "searchsorted", options)
      .buffer(result.data_ptr())
      .buffer(sorted.const_data_ptr())
      .buffer(input.const_data_ptr())
      .value<int64_t>(sorted.size(-1))
      .value<int64_t>(sorted.dim() == 1 ? 0 : input.size(-1))
      .count(n)
      .launch(n);
  copy_back(result, out);
}

}  // namespace foo_cl::launch
