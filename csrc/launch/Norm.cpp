// Normalisation launches: reductions take one work-group per group (one work-item on CPU devices,
// which run a group's items one after another anyway); elementwise passes one work-item per block.
#include "launch/Norm.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>

namespace foo_cl::launch {
namespace {

size_t group_count(const runtime::DeviceInfo& info, int64_t groups) {
  return std::min<size_t>(static_cast<size_t>(groups),
                          static_cast<size_t>(std::max<uint32_t>(info.compute_units, 1)) * 64);
}

std::string norm_options(const at::Tensor& input, const at::Tensor& stats, const at::Tensor& weight, bool per_element) {
  std::string options = dtype_option("DT", input.scalar_type()) + dtype_option("ACC", stats.scalar_type());
  if (weight.defined()) options += "-DWITH_WEIGHT ";
  if (per_element) options += "-DPER_ELEMENT ";
  return options;
}

}  // namespace

void launch_moments(const at::Tensor& input, int64_t groups, int64_t outer, int64_t inner, const at::Tensor& mean,
                    const at::Tensor& var) {
  TORCH_INTERNAL_ASSERT(input.is_contiguous() && mean.is_contiguous() && var.is_contiguous());
  if (groups == 0) return;
  const c10::DeviceGuard guard(input.device());
  const runtime::DeviceInfo& info = runtime::device_info(input.device().index());
  const size_t local = info.row_group_size;
  KernelCall(input.device().index(), "norm/moments", "moments",
             dtype_option("DT", input.scalar_type()) + dtype_option("ACC", mean.scalar_type()) +
                 "-DLOCAL_SIZE=" + std::to_string(local))
      .buffer(input.const_data_ptr())
      .buffer(mean.data_ptr())
      .buffer(var.data_ptr())
      .value(static_cast<uint64_t>(groups))
      .value(static_cast<uint64_t>(outer))
      .value(static_cast<uint64_t>(inner))
      .launch_groups(group_count(info, groups), local);
}

void launch_layer_norm(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias, double eps,
                       const at::Tensor& out, const at::Tensor& mean, const at::Tensor& rstd) {
  TORCH_INTERNAL_ASSERT(input.is_contiguous() && out.is_contiguous() && rstd.is_contiguous());
  TORCH_INTERNAL_ASSERT(!mean.defined() || mean.is_contiguous());
  const bool rms = !mean.defined();
  const int64_t rows = rstd.numel(), inner = rows == 0 ? 0 : input.numel() / rows;
  if (rows == 0) return;
  const c10::DeviceGuard guard(input.device());
  const c10::DeviceIndex device = input.device().index();
  const runtime::DeviceInfo& info = runtime::device_info(device);
  auto launch = [&](const std::string& candidate, const at::Tensor& y, const at::Tensor& m, const at::Tensor& r) {
    const size_t local = tune::param(candidate, "L");
    std::string options = norm_options(input, rstd, weight, /*per_element=*/true) +
                          "-DLOCAL_SIZE=" + std::to_string(local) + (bias.defined() ? " -DWITH_BIAS" : "") +
                          (rms ? " -DRMS" : "");
    KernelCall(device, "norm/layer_norm", "layer_norm_rows", options)
        .buffer(input.const_data_ptr())
        .buffer(or_unused(weight, input))
        .buffer(or_unused(bias, input))
        .buffer(y.data_ptr())
        .buffer(rms ? r.data_ptr() : m.data_ptr())
        .buffer(r.data_ptr())
        .value(static_cast<uint64_t>(rows))
        .value(static_cast<uint64_t>(inner))
        .scalar(eps, rstd.scalar_type())
        .launch_groups(group_count(info, rows), local);
  };
  const std::vector<std::string> candidates = row_candidates(info, /*vectorized=*/false);
  const std::string shape_class = std::string(rms ? "rms " : "") + c10::toString(input.scalar_type()) + " " +
                                  tune::bucket("D", inner, 16, 8192) + " " + tune::bucket("rows", rows, 16, 4096);
  const std::string candidate = tune::choose(
      device, "layer_norm", shape_class, candidates, input.numel() >= kTunedMinRowElements, [&](const std::string& c) {
        const at::Tensor y = at::empty_like(out);
        launch(c, y, rms ? at::Tensor() : at::empty_like(mean), at::empty_like(rstd));
        return y;
      });
  launch(candidate, out, mean, rstd);
}

void launch_normalize(const at::Tensor& input, const at::Tensor& mean, const at::Tensor& rstd, const at::Tensor& weight,
                      const at::Tensor& bias, const at::Tensor& out, int64_t groups, int64_t inner, bool per_element) {
  TORCH_INTERNAL_ASSERT(input.is_contiguous() && out.is_contiguous());
  if (inner == 0 || input.numel() == 0) return;
  const c10::DeviceGuard guard(input.device());
  const int64_t n = input.numel();
  std::string options = norm_options(input, mean, weight, per_element) + index_option(n);
  if (bias.defined()) options += "-DWITH_BIAS ";
  KernelCall(input.device().index(), "norm/normalize", "normalize_blocks", options)
      .buffer(input.const_data_ptr())
      .buffer(mean.const_data_ptr())
      .buffer(rstd.const_data_ptr())
      .buffer(or_unused(weight, input))
      .buffer(or_unused(bias, input))
      .buffer(out.data_ptr())
      .value(static_cast<uint64_t>(groups))
      .value(static_cast<uint64_t>(inner))
      .count(n)
      .launch(n);
}

at::Tensor launch_group_sums(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& mean,
                             const at::Tensor& rstd, const at::Tensor& weight, int64_t groups, int64_t outer,
                             int64_t inner, bool per_element) {
  TORCH_INTERNAL_ASSERT(grad.is_contiguous() && input.is_contiguous());
  if (groups == 0 || input.numel() == 0) return at::zeros({groups, 2}, mean.options());
  const at::Tensor sums = at::empty({groups, 2}, mean.options());  // every group's written
  const c10::DeviceGuard guard(input.device());
  const runtime::DeviceInfo& info = runtime::device_info(input.device().index());
  const size_t local = info.row_group_size;
  KernelCall(input.device().index(), "norm/norm_backward", "group_sums",
             norm_options(input, mean, weight, per_element) + "-DLOCAL_SIZE=" + std::to_string(local) + " " +
                 index_option(input.numel()))
      .buffer(grad.const_data_ptr())
      .buffer(input.const_data_ptr())
      .buffer(mean.const_data_ptr())
      .buffer(rstd.const_data_ptr())
      .buffer(or_unused(weight, input))
      .buffer(sums.data_ptr())
      .value(static_cast<uint64_t>(groups))
      .value(static_cast<uint64_t>(outer))
      .value(static_cast<uint64_t>(inner))
      .launch_groups(group_count(info, groups), local);
  return sums;
}

void launch_input_grad(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& mean, const at::Tensor& rstd,
                       const at::Tensor& weight, const at::Tensor& sums, const at::Tensor& grad_input, int64_t groups,
                       int64_t inner, double count, bool per_element, bool eval) {
  TORCH_INTERNAL_ASSERT(grad.is_contiguous() && input.is_contiguous() && grad_input.is_contiguous());
  if (inner == 0 || input.numel() == 0) return;
  const c10::DeviceGuard guard(input.device());
  const int64_t n = input.numel();
  const runtime::DeviceInfo& info = runtime::device_info(input.device().index());
  std::string options = norm_options(input, mean, weight, per_element) +
                        "-DLOCAL_SIZE=" + std::to_string(info.row_group_size) + " " + index_option(n);
  if (eval) options += "-DEVAL ";
  KernelCall(input.device().index(), "norm/norm_backward", "input_grad", options)
      .buffer(grad.const_data_ptr())
      .buffer(input.const_data_ptr())
      .buffer(mean.const_data_ptr())
      .buffer(rstd.const_data_ptr())
      .buffer(or_unused(weight, input))
      .buffer(sums.const_data_ptr())
      .buffer(grad_input.data_ptr())
      .value(static_cast<uint64_t>(groups))
      .value(static_cast<uint64_t>(inner))
      .scalar(count, mean.scalar_type())
      .count(n)
      .launch(n);
}

std::pair<at::Tensor, at::Tensor> launch_param_grads(const at::Tensor& grad, const at::Tensor& input,
                                                     const at::Tensor& mean, const at::Tensor& rstd, int64_t rows,
                                                     int64_t n) {
  TORCH_INTERNAL_ASSERT(grad.is_contiguous() && input.is_contiguous() && rstd.is_contiguous());
  TORCH_INTERNAL_ASSERT(!mean.defined() || mean.is_contiguous());
  const bool rms = !mean.defined();
  if (rows == 0 || n == 0) return {at::zeros({n}, rstd.options()), at::zeros({n}, rstd.options())};
  const c10::DeviceGuard guard(input.device());
  const runtime::DeviceInfo& info = runtime::device_info(input.device().index());
  // A work-item per chunk of rows on CPU devices: 4 chunks per compute unit, of at least 16 rows.
  // Elsewhere a work-item per chunk and 8 columns: about 4096 of them, chunks of at least 16 rows.
  const int64_t column_blocks = info.cpu_class ? 1 : (n + 7) / 8;
  const int64_t wanted = info.cpu_class ? 4 * static_cast<int64_t>(std::max<uint32_t>(info.compute_units, 1))
                                        : 4096 / column_blocks;
  const int64_t chunks = std::clamp<int64_t>(wanted, 1, std::max<int64_t>(rows / 16, 1));
  const int64_t chunk = (rows + chunks - 1) / chunks;
  const int64_t used = (rows + chunk - 1) / chunk;  // chunks holding rows
  const at::Tensor partial = at::empty({2, used, n}, rstd.options());  // every element written
  const int64_t units = used * column_blocks;
  KernelCall(input.device().index(), "norm/norm_backward", "param_grads",
             norm_options(input, rstd, at::Tensor(), /*per_element=*/true) + "-DLOCAL_SIZE=1 " + index_option(units) +
                 (rms ? "-DRMS" : ""))
      .buffer(grad.const_data_ptr())
      .buffer(input.const_data_ptr())
      .buffer(or_unused(mean, rstd))
      .buffer(rstd.const_data_ptr())
      .buffer(partial.data_ptr())
      .value(static_cast<uint64_t>(rows))
      .value(static_cast<uint64_t>(n))
      .value(static_cast<uint64_t>(chunk))
      .count(units)
      .launch_loops(units, 1);
  const at::Tensor sums = partial.sum(1);
  return {sums[0], sums[1]};
}

}  // namespace foo_cl::launch
