// The GradScaler's kernels: unscaling gradients while recording whether any is inf or NaN, and
// updating the scale, composed of foo kernels with no wait for the device (as on CUDA).
#include <ATen/TensorOperators.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// found_inf (one float) becomes 1 when a tensor holds inf or NaN; every tensor is multiplied by
// inv_scale (one float).
void non_finite_check_and_unscale(at::TensorList tensors, Tensor& found_inf, const Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == at::kFloat, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    const c10::DeviceGuard guard(t.device());
    at::maximum_out(found_inf, found_inf, t.isfinite().logical_not().any().to(at::kFloat).view(found_inf.sizes()));
    t.mul_(inv_scale.squeeze());  // a 0-dim float: 16-bit gradients multiply in float32
  }
}

// As CPU and CUDA: after an inf or NaN the scale backs off and the growth count restarts;
// otherwise the scale grows once the count reaches growth_interval (unless that overflows).
Tensor& update_scale(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                     double backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.numel() == 1 && growth_tracker.scalar_type() == at::kInt,
              "growth_tracker must be a 1-element int tensor.");
  TORCH_CHECK(scale.numel() == 1 && scale.scalar_type() == at::kFloat, "current_scale must be a 1-element float tensor.");
  const c10::DeviceGuard guard(scale.device());
  const Tensor inf = found_inf.ne(0).view(scale.sizes());  // as CPU: any nonzero value, NaN too
  const Tensor count = at::where(inf, 0, growth_tracker + 1);
  const Tensor grown = scale * growth_factor;
  const Tensor grow = count.ge(growth_interval).logical_and_(grown.isfinite());
  scale.copy_(at::where(inf, scale * backoff_factor, at::where(grow, grown, scale)));
  growth_tracker.copy_(at::where(count.ge(growth_interval), 0, count));
  return scale;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_amp_foreach_non_finite_check_and_unscale_", non_finite_check_and_unscale);
  m.impl("_amp_update_scale_", update_scale);
}

}  // namespace foo_cl::aten
