// Sort launches: padding to a power of two, local-memory chunks, then one launch per wide stage; on
// CPU devices the first few of each row by a scan instead.
#include "launch/Sort.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>

namespace foo_cl::launch {
namespace {

uint64_t next_power_of_two(uint64_t n) {
  uint64_t p = 2;
  while (p < n) p <<= 1;
  return p;
}

// sort/order.clh's build options.
std::string order_options(c10::ScalarType key, bool descending) {
  std::string options = dtype_option("KEY", key);
  if (c10::isFloatingType(key)) options += "-DCOMPUTE_IS_FLOAT_KEY ";
  if (descending) options += "-DDESCENDING ";
  return options;
}

// The most first elements a row's scan keeps (sort/select.cl); more take the bitonic sort.
constexpr int64_t kSelectMax = 64;

// launch_sort_rows for m <= kSelectMax on CPU devices: each row scanned by a work-item that keeps
// its m first. A CPU runs a work-group's items as a loop, so the bitonic network's barriers split
// every stage into loops of their own: topk(10) of 1024 rows of 1024 floats took 144 ms that way,
// 2.5 on PyTorch's CPU backend (pthread-haswell-AMD EPYC).
void select_rows(const at::Tensor& keys, const at::Tensor& values, const at::Tensor& positions, bool descending) {
  const int64_t rows = keys.size(0), n = keys.size(1), m = values.size(1);
  const c10::DeviceIndex device = keys.device().index();
  const runtime::DeviceInfo& info = runtime::device_info(device);
  // Few rows are split into segments, 8 per compute unit, each of at least 16 m keys (the first
  // pass's candidates a small part of the row), whose candidates a second pass scans.
  const int64_t target = 8 * static_cast<int64_t>(std::max<uint32_t>(info.compute_units, 1));
  const int64_t split = std::clamp<int64_t>((target + rows - 1) / rows, 1, std::max<int64_t>(n / (16 * m), 1));
  const int64_t chunk = (n + split - 1) / split, chunks = (n + chunk - 1) / chunk;
  // One pass: rows of `length` keys in `spans` segments of `span`, m first of each segment out.
  auto select = [&](const at::Tensor& in, const at::Tensor* in_positions, int64_t length, int64_t span,
                    int64_t spans, const at::Tensor& out, const at::Tensor& out_positions) {
    const int64_t segments = rows * spans;
    std::string options = order_options(keys.scalar_type(), descending) + index_option(segments);
    if (in_positions) options += "-DIN_POSITIONS ";
    KernelCall(device, "sort/select", "select_first", options)
        .buffer(in.const_data_ptr())
        .buffer(in_positions ? in_positions->const_data_ptr() : in.const_data_ptr())  // unread without IN_POSITIONS
        .buffer(out.data_ptr())
        .buffer(out_positions.data_ptr())
        .value(static_cast<uint64_t>(length))
        .value(static_cast<uint64_t>(span))
        .value(static_cast<uint64_t>(spans))
        .value(static_cast<uint64_t>(m))
        .count(segments)
        .launch_loops(segments, 1);
  };
  if (chunks == 1) return select(keys, nullptr, n, n, 1, values, positions);
  const at::Tensor candidates = at::empty({rows, chunks * m}, keys.options());
  const at::Tensor candidate_positions = at::empty({rows, chunks * m}, keys.options().dtype(c10::kLong));
  select(keys, nullptr, n, chunk, chunks, candidates, candidate_positions);
  select(candidates, &candidate_positions, chunks * m, chunks * m, 1, values, positions);
}

}  // namespace

void launch_sort_rows(const at::Tensor& keys, const at::Tensor& values, const at::Tensor& positions, bool descending) {
  TORCH_INTERNAL_ASSERT(keys.dim() == 2 && keys.is_contiguous() && values.is_contiguous() && positions.is_contiguous());
  const int64_t rows = keys.size(0), n = keys.size(1), m = values.size(1);
  if (rows == 0 || m == 0) return;
  const c10::DeviceGuard guard(keys.device());
  const c10::DeviceIndex device = keys.device().index();
  const runtime::DeviceInfo& info = runtime::device_info(device);
  if (info.cpu_class && m <= kSelectMax) return select_rows(keys, values, positions, descending);

  const uint64_t padded = next_power_of_two(static_cast<uint64_t>(n));
  const c10::ScalarType compute = compute_type(keys.scalar_type());
  // A chunk of CHUNK elements is sorted by CHUNK / 2 work-items in local memory.
  const uint64_t entry_bytes = c10::elementSize(compute) + sizeof(int64_t);
  size_t items = 256;  // a power of two, as the bitonic network needs
  while (items > info.max_work_group_size) items /= 2;
  uint64_t chunk = std::min<uint64_t>(padded, 2 * items);
  while (chunk > 2 && chunk * entry_bytes > info.local_mem_size / 2) chunk /= 2;

  const int64_t total = rows * static_cast<int64_t>(padded);
  const std::string options = order_options(keys.scalar_type(), descending) + index_option(total) + "-DCHUNK=" +
                              std::to_string(chunk) + " ";

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
