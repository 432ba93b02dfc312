// Attention's row-wise launches: the mask's strides and kind as arguments and build options, a
// work-group per row for the softmax (one work-item on CPU devices).
#include "launch/Attention.h"

#include "launch/Launch.h"
#include "launch/Random.h"
#include "runtime/Device.h"

#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {
namespace {

std::string mask_options(const at::Tensor& scores, const at::Tensor& mask, bool causal,
                         const std::optional<AttentionDropout>& dropout) {
  std::string options = compute_option(scores.scalar_type());
  if (causal) options += "-DCAUSAL ";
  if (mask.defined()) options += mask.scalar_type() == c10::kBool ? "-DMASK_BOOL " : "-DMASK_ADD ";
  if (dropout) options += "-DDROPOUT ";
  return options;
}

// The keep probability as the draws compare it (float), and the kept elements' scale in the
// scores' dtype, as random/dropout takes them.
void dropout_args(KernelCall& call, const at::Tensor& scores, const std::optional<AttentionDropout>& dropout) {
  if (!dropout) return;
  call.value(dropout->state.seed).value(dropout->state.offset).value(static_cast<float>(dropout->keep));
  call.scalar(dropout->keep == 0 ? 0. : 1. / dropout->keep, scores.scalar_type());
}

// The mask (any buffer when there is none), the rows' shape and the mask's element strides.
void mask_args(KernelCall& call, const at::Tensor& scores, const at::Tensor& mask, int64_t heads) {
  call.buffer(mask.defined() ? mask.const_data_ptr() : scores.const_data_ptr());
  call.value(static_cast<uint64_t>(heads)).value(static_cast<uint64_t>(scores.size(1)));
  call.value(static_cast<uint64_t>(scores.size(2)));
  for (int d = 0; d < 4; ++d) call.value(static_cast<int64_t>(mask.defined() ? mask.stride(d) : 0));
}

}  // namespace

void launch_attention_softmax(const at::Tensor& scores, const at::Tensor& lse, const at::Tensor& mask, bool causal,
                              int64_t heads, const std::optional<AttentionDropout>& dropout) {
  TORCH_INTERNAL_ASSERT(scores.is_contiguous() && scores.dim() == 3 && lse.is_contiguous());
  const int64_t rows = scores.size(0) * scores.size(1);
  if (rows == 0) return;
  const c10::DeviceGuard guard(scores.device());
  const runtime::DeviceInfo& info = runtime::device_info(scores.device().index());
  const size_t local = info.row_group_size;
  KernelCall call(scores.device().index(), "attention/attention", "attention_softmax",
                  mask_options(scores, mask, causal, dropout) + "-DLOCAL_SIZE=" + std::to_string(local) +
                      (local == 1 ? " -DVEC=" + std::to_string(info.vector_width) : ""));
  call.buffer(scores.const_data_ptr()).buffer(lse.const_data_ptr());
  mask_args(call, scores, mask, heads);
  call.value(static_cast<uint64_t>(rows));
  dropout_args(call, scores, dropout);
  call.launch_groups(std::min<int64_t>(rows, static_cast<int64_t>(info.compute_units) * 64), local);
}

void launch_attention_grad_scores(const at::Tensor& scores, const at::Tensor& grad, const at::Tensor& lse,
                                  const at::Tensor& delta, const at::Tensor& mask, bool causal, int64_t heads,
                                  const std::optional<AttentionDropout>& dropout) {
  TORCH_INTERNAL_ASSERT(scores.is_contiguous() && grad.is_contiguous() && lse.is_contiguous() && delta.is_contiguous());
  const int64_t n = scores.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(scores.device());
  KernelCall call(scores.device().index(), "attention/attention", "attention_grad_scores",
                  mask_options(scores, mask, causal, dropout) + "-DLOCAL_SIZE=1 " + index_option(n));
  call.buffer(scores.const_data_ptr()).buffer(grad.const_data_ptr());
  call.buffer(lse.const_data_ptr()).buffer(delta.const_data_ptr());
  mask_args(call, scores, mask, heads);
  call.count(n);
  dropout_args(call, scores, dropout);
  call.launch(dropout ? static_cast<int64_t>(philox_tiles(n, 32)) : n);
}

}  // namespace foo_cl::launch
