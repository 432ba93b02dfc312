// The row-wise launches of scaled_dot_product_attention (kernels_cl/attention/): masked softmax
// of the scores with their logsumexp, and the scores' gradient. Scores are contiguous
// [B * heads, L, S] of float or double; `mask` is undefined, boolean (true keeps a score) or
// additive in the scores' dtype, expanded to [B, heads, L, S].
// With dropout, the probabilities are dropped as random/dropout drops elements: score element e is
// kept when Philox draw e from `state` is below `keep`, and then scaled by 1 / keep.
#pragma once

#include "runtime/Generator.h"

#include <ATen/core/Tensor.h>

#include <optional>

namespace foo_cl::launch {

struct AttentionDropout {
  double keep;  // 1 - dropout_p
  runtime::PhiloxState state;
};

// scores -> probabilities in place (dropped, with dropout); lse [B * heads * L] gets each row's
// logsumexp (of the probabilities before dropout).
void launch_attention_softmax(const at::Tensor& scores, const at::Tensor& lse, const at::Tensor& mask, bool causal,
                              int64_t heads, const std::optional<AttentionDropout>& dropout);

// scores -> probabilities P (dropped, with dropout), grad (dP', of the dropped ones) -> dS = P * (dP - delta),
// from each row's lse and delta.
void launch_attention_grad_scores(const at::Tensor& scores, const at::Tensor& grad, const at::Tensor& lse,
                                  const at::Tensor& delta, const at::Tensor& mask, bool causal, int64_t heads,
                                  const std::optional<AttentionDropout>& dropout);

}  // namespace foo_cl::launch
