// F.interpolate's kernels (launch/Upsample), forward and backward, with PyTorch's structured meta
// functions for checks and shapes: nearest and nearest-exact (1-d to 3-d), linear, bilinear and
// trilinear, bicubic, and antialiased bilinear and bicubic. The interpolating modes of integer
// images (uint8, which CPU rounds with fixed-point weights) run on the CPU fallback.
#include "aten/Atomics.h"
#include "aten/Structured.h"
#include "launch/Upsample.h"

#include <ATen/ops/_upsample_bicubic2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bicubic2d_aa_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_meta.h>
#include <ATen/ops/upsample_bicubic2d_backward_meta.h>
#include <ATen/ops/upsample_bicubic2d_meta.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_linear1d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <ATen/ops/upsample_nearest3d_backward_meta.h>
#include <ATen/ops/upsample_nearest3d_meta.h>
#include <ATen/ops/upsample_trilinear3d_backward_meta.h>
#include <ATen/ops/upsample_trilinear3d_meta.h>

#include <algorithm>
#include <utility>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using launch::UpsampleMode;
using OptionalScale = std::optional<double>;

// The scale factors of the resized dims, in the launchers' layout (last dim last).
template <class... Scales>
launch::UpsampleScales scales_of(Scales... given) {
  const std::array<OptionalScale, sizeof...(Scales)> scales{given...};
  launch::UpsampleScales all{};
  std::copy(scales.begin(), scales.end(), all.end() - scales.size());
  return all;
}

// The arguments after the sizes: (align_corners, scales...) for the interpolating modes, (scales...)
// for the nearest ones.
template <class... Scales>
std::pair<bool, launch::UpsampleScales> upsample_args(bool align_corners, Scales... scales) {
  return {align_corners, scales_of(scales...)};
}
template <class... Scales>
std::pair<bool, launch::UpsampleScales> upsample_args(OptionalScale first, Scales... scales) {
  return {false, scales_of(first, scales...)};
}

// Registers operator `name`'s functional and out= variants (`name` and `out`) and its backward's
// (`backward`, `backward_out`). Args are the arguments after the sizes.
template <class Meta, class BackwardMeta, UpsampleMode Mode, int64_t Dims, class... Args>
void register_upsample(torch::Library& m, const char* name, const char* out, const char* backward,
                       const char* backward_out) {
  constexpr bool nearest = launch::is_nearest(Mode);
  register_structured_with_self<Meta, c10::IntArrayRef, Args...>(
      m, name, nullptr, out, [name](Meta& op, const Tensor& self, c10::IntArrayRef output_size, Args... args) {
        const Tensor& result = op.maybe_get_output(0);
        if (!nearest && !c10::isFloatingType(self.scalar_type())) {
          result.copy_(detail::run_fallback_on(name, self, output_size, args...)[0].toTensor());
          return;
        }
        const auto [align_corners, scales] = upsample_args(args...);
        launch::launch_upsample(Mode, Dims, self.contiguous(), result, align_corners, scales);
      });
  register_structured_with_self<BackwardMeta, c10::IntArrayRef, c10::IntArrayRef, Args...>(
      m, backward, nullptr, backward_out,
      [backward](BackwardMeta& op, const Tensor& grad_output, c10::IntArrayRef, c10::IntArrayRef, Args... args) {
        const Tensor& grad_input = op.maybe_get_output(0);
        if (!nearest) check_atomic_accumulation(backward, grad_input);  // overlapping taps add atomically
        const auto [align_corners, scales] = upsample_args(args...);
        launch::launch_upsample_backward(Mode, Dims, grad_output.contiguous(), grad_input, align_corners, scales);
      });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  using Scale = OptionalScale;
  register_upsample<structured_upsample_nearest1d, structured_upsample_nearest1d_backward, UpsampleMode::kNearest, 1,
                    Scale>(m, "upsample_nearest1d", "upsample_nearest1d.out", "upsample_nearest1d_backward",
                           "upsample_nearest1d_backward.grad_input");
  register_upsample<structured_upsample_nearest2d, structured_upsample_nearest2d_backward, UpsampleMode::kNearest, 2,
                    Scale, Scale>(m, "upsample_nearest2d", "upsample_nearest2d.out", "upsample_nearest2d_backward",
                                  "upsample_nearest2d_backward.grad_input");
  register_upsample<structured_upsample_nearest3d, structured_upsample_nearest3d_backward, UpsampleMode::kNearest, 3,
                    Scale, Scale, Scale>(m, "upsample_nearest3d", "upsample_nearest3d.out",
                                         "upsample_nearest3d_backward", "upsample_nearest3d_backward.grad_input");
  register_upsample<structured__upsample_nearest_exact1d, structured__upsample_nearest_exact1d_backward,
                    UpsampleMode::kNearestExact, 1, Scale>(
      m, "_upsample_nearest_exact1d", "_upsample_nearest_exact1d.out", "_upsample_nearest_exact1d_backward",
      "_upsample_nearest_exact1d_backward.grad_input");
  register_upsample<structured__upsample_nearest_exact2d, structured__upsample_nearest_exact2d_backward,
                    UpsampleMode::kNearestExact, 2, Scale, Scale>(
      m, "_upsample_nearest_exact2d", "_upsample_nearest_exact2d.out", "_upsample_nearest_exact2d_backward",
      "_upsample_nearest_exact2d_backward.grad_input");
  register_upsample<structured__upsample_nearest_exact3d, structured__upsample_nearest_exact3d_backward,
                    UpsampleMode::kNearestExact, 3, Scale, Scale, Scale>(
      m, "_upsample_nearest_exact3d", "_upsample_nearest_exact3d.out", "_upsample_nearest_exact3d_backward",
      "_upsample_nearest_exact3d_backward.grad_input");
  register_upsample<structured_upsample_linear1d, structured_upsample_linear1d_backward, UpsampleMode::kLinear, 1, bool,
                    Scale>(m, "upsample_linear1d", "upsample_linear1d.out", "upsample_linear1d_backward",
                           "upsample_linear1d_backward.grad_input");
  register_upsample<structured_upsample_bilinear2d, structured_upsample_bilinear2d_backward, UpsampleMode::kLinear, 2,
                    bool, Scale, Scale>(m, "upsample_bilinear2d", "upsample_bilinear2d.out",
                                        "upsample_bilinear2d_backward", "upsample_bilinear2d_backward.grad_input");
  register_upsample<structured_upsample_trilinear3d, structured_upsample_trilinear3d_backward, UpsampleMode::kLinear, 3,
                    bool, Scale, Scale, Scale>(m, "upsample_trilinear3d", "upsample_trilinear3d.out",
                                               "upsample_trilinear3d_backward",
                                               "upsample_trilinear3d_backward.grad_input");
  register_upsample<structured_upsample_bicubic2d, structured_upsample_bicubic2d_backward, UpsampleMode::kCubic, 2,
                    bool, Scale, Scale>(m, "upsample_bicubic2d", "upsample_bicubic2d.out",
                                        "upsample_bicubic2d_backward", "upsample_bicubic2d_backward.grad_input");
  register_upsample<structured__upsample_bilinear2d_aa, structured__upsample_bilinear2d_aa_backward,
                    UpsampleMode::kLinearAntialiased, 2, bool, Scale, Scale>(
      m, "_upsample_bilinear2d_aa", "_upsample_bilinear2d_aa.out", "_upsample_bilinear2d_aa_backward",
      "_upsample_bilinear2d_aa_backward.grad_input");
  register_upsample<structured__upsample_bicubic2d_aa, structured__upsample_bicubic2d_aa_backward,
                    UpsampleMode::kCubicAntialiased, 2, bool, Scale, Scale>(
      m, "_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa.out", "_upsample_bicubic2d_aa_backward",
      "_upsample_bicubic2d_aa_backward.grad_input");
}

}  // namespace foo_cl::aten
