// Random launches: counter reservation, build options, and non-contiguous outputs via a temporary.
#include "launch/Random.h"

#include "launch/Launch.h"
#include "runtime/Generator.h"

#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <functional>

namespace foo_cl::launch {

uint64_t philox_tiles(int64_t n, int bits) {
  const int64_t tile = bits == 64 ? 16 : 32;
  return static_cast<uint64_t>((n + tile - 1) / tile);
}

runtime::PhiloxState reserve_philox_tiles(const std::optional<at::Generator>& gen, c10::DeviceIndex device, int64_t n,
                                          int bits) {
  return runtime::reserve_counters(gen, device, 8 * philox_tiles(n, bits));
}

namespace {

// Runs `fill` on a contiguous tensor of out's shape: out itself, or a temporary copied into it.
// The kernels store eight elements at once, so out must also start on a whole vector of them (see
// can_vectorize in Pointwise.cpp for PoCL's float16 stores).
void fill_logically(const at::Tensor& out, const std::function<void(const at::Tensor&)>& fill) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  if (out.is_contiguous() && is_vector_aligned(out.const_data_ptr(), 8 * out.element_size())) {
    fill(out);
    return;
  }
  const at::Tensor dense = at::empty(out.sizes(), out.options());
  fill(dense);
  out.copy_(dense);
}

}  // namespace

void launch_random(const at::Tensor& out, const std::string& key, int bits, const std::optional<at::Generator>& gen,
                   double s0, double s1, const at::Tensor& input) {
  fill_logically(out, [&](const at::Tensor& dense) {
    const int64_t n = dense.numel();
    const c10::DeviceIndex device = dense.device().index();
    std::string options =
        dtype_option("OUT", dense.scalar_type()) + index_option(n) + "-DBITS=" + std::to_string(bits) + " ";
    // The kernel's parameters (and inputs) are of its parameter type pt: float, or double for float64.
    const c10::ScalarType param_type = float_accumulate_type(dense.scalar_type());
    const at::Tensor in = input.defined() ? input.to(param_type).expand(dense.sizes()).contiguous() : input;
    if (in.defined()) options += "-DWITH_INPUT ";
    const runtime::PhiloxState state = reserve_philox_tiles(gen, device, n, bits);
    KernelCall call(device, key, "sample_contig", options);
    call.buffer(dense.data_ptr());
    if (in.defined()) call.buffer(in.data_ptr());
    call.value(state.seed).value(state.offset);
    call.scalar(s0, param_type).scalar(s1, param_type);
    call.count(n).launch(philox_tiles(n, bits));
  });
}

void launch_random_integers(const at::Tensor& out, uint64_t range, int64_t base,
                            const std::optional<at::Generator>& gen) {
  const int bits = range == 0 || range > (uint64_t{1} << 32) ? 64 : 32;
  fill_logically(out, [&](const at::Tensor& dense) {
    const int64_t n = dense.numel();
    const c10::DeviceIndex device = dense.device().index();
    const std::string options =
        dtype_option("OUT", dense.scalar_type()) + index_option(n) + "-DBITS=" + std::to_string(bits) + " ";
    const runtime::PhiloxState state = reserve_philox_tiles(gen, device, n, bits);
    KernelCall(device, "random/random", "sample_contig", options)
        .buffer(dense.data_ptr())
        .value(state.seed)
        .value(state.offset)
        .value(range)
        .value(static_cast<uint64_t>(base))
        .count(n)
        .launch(philox_tiles(n, bits));
  });
}

void launch_randperm(const at::Tensor& out, const std::optional<at::Generator>& gen) {
  TORCH_INTERNAL_ASSERT(out.dim() == 1 && out.is_contiguous() && out.scalar_type() == at::kLong);
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(out.device());
  const c10::DeviceIndex device = out.device().index();
  constexpr int kBucketBits = 8;
  constexpr int64_t kBuckets = int64_t{1} << kBucketBits;
  // Work-items dealing the elements: chunks of at least 16K elements (whole tiles of 32), at most 256.
  const int64_t groups = std::clamp<int64_t>(n / 16384, 1, 256);
  const int64_t chunk = ((n + groups - 1) / groups + 31) / 32 * 32;
  const std::string options = "-DBUCKET_BITS=" + std::to_string(kBucketBits) + " ";
  // 2n words: one per element for its bucket, one per slot for the shuffles.
  const runtime::PhiloxState state = reserve_philox_tiles(gen, device, 2 * n, 32);
  const size_t dealers[3] = {static_cast<size_t>(groups), 1, 1}, buckets[3] = {kBuckets, 1, 1}, one[3] = {1, 1, 1};
  const at::Tensor counts = at::empty({kBuckets * groups}, out.options());
  KernelCall(device, "random/randperm", "randperm_count", options)
      .buffer(counts.data_ptr())
      .value(n)
      .value(chunk)
      .value(state.seed)
      .value(state.offset)
      .launch_nd(dealers, one);
  const at::Tensor slots = at::cumsum(counts, 0).sub_(counts);  // each (bucket, dealer)'s first slot
  KernelCall(device, "random/randperm", "randperm_scatter", options)
      .buffer(out.data_ptr())
      .buffer(slots.const_data_ptr())
      .value(n)
      .value(chunk)
      .value(state.seed)
      .value(state.offset)
      .launch_nd(dealers, one);
  KernelCall(device, "random/randperm", "randperm_shuffle", options)
      .buffer(out.data_ptr())
      .buffer(slots.const_data_ptr())
      .value(n)
      .value(groups)
      .value(state.seed)
      .value(state.offset)
      .launch_nd(buckets, one);
}

void launch_dropout(const at::Tensor& out, const at::Tensor& mask, const at::Tensor& input, double p1m, double scale,
                    const std::optional<at::Generator>& gen) {
  TORCH_INTERNAL_ASSERT(out.is_contiguous() && mask.is_contiguous() && input.is_contiguous());
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(out.device());
  const c10::DeviceIndex device = out.device().index();
  const runtime::PhiloxState state = reserve_philox_tiles(gen, device, n, 32);
  const c10::ScalarType compute = out.scalar_type() == c10::kDouble ? c10::kDouble : c10::kFloat;
  KernelCall(device, "random/dropout", "dropout_contig", dtype_option("OUT", out.scalar_type()) + index_option(n))
      .buffer(out.data_ptr())
      .buffer(mask.data_ptr())
      .buffer(input.data_ptr())
      .value(state.seed)
      .value(state.offset)
      .value(static_cast<float>(p1m))
      .scalar(scale, compute)
      .count(n)
      .launch(philox_tiles(n, 32));
}

void launch_multinomial(const at::Tensor& out, const at::Tensor& cdf, const std::optional<at::Generator>& gen) {
  TORCH_INTERNAL_ASSERT(out.is_contiguous() && cdf.is_contiguous() && out.dim() == 2 && cdf.dim() == 2);
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(out.device());
  const c10::DeviceIndex device = out.device().index();
  const runtime::PhiloxState state = reserve_philox_tiles(gen, device, n, 32);
  KernelCall(device, "random/multinomial", "multinomial_contig",
             dtype_option("ACC", cdf.scalar_type()) + index_option(n))
      .buffer(out.data_ptr())
      .buffer(cdf.data_ptr())
      .value(state.seed)
      .value(state.offset)
      .value(static_cast<uint64_t>(cdf.size(1)))
      .value(static_cast<uint64_t>(out.size(1)))
      .count(n)
      .launch(philox_tiles(n, 32));
}

}  // namespace foo_cl::launch
