// The row-wise launches of scaled_dot_product_attention (kernels_cl/attention/): masked softmax
// of the scores with their logsumexp, and the scores' gradient. Scores are contiguous
// [B * heads, L, S] of float or double; `mask` is undefined, boolean (true keeps a score) or
// additive in the scores' dtype, expanded to [B, heads, L, S].
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

// scores -> probabilities in place; lse [B * heads * L] gets each row's logsumexp.
void launch_attention_softmax(const at::Tensor& scores, const at::Tensor& lse, const at::Tensor& mask, bool causal,
                              int64_t heads);

// scores -> probabilities, grad (dP) -> dS = P * (dP - delta), from each row's lse and delta.
void launch_attention_grad_scores(const at::Tensor& scores, const at::Tensor& grad, const at::Tensor& lse,
                                  const at::Tensor& delta, const at::Tensor& mask, bool causal, int64_t heads);

}  // namespace foo_cl::launch
