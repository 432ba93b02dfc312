// scaled_dot_product_attention's launches, on [B, heads, n, dim] operands: the composed path (two
// products around one masked softmax launch, the backward from the saved logsumexp) or the blocked
// flash kernels (kernels_cl/attention/flash.cl: online softmax, no score matrix in memory, operands
// read and written through their strides), each direction taking whichever the tuner timed faster
// for its shape class.
// With dropout, probabilities are dropped as random/dropout drops elements: score element
// e = row * S + key is kept when Philox draw e from `state` is below `keep`, and then scaled by
// 1 / keep; the backward draws the same elements again.
#pragma once

#include "runtime/Generator.h"

#include <ATen/core/Tensor.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace foo_cl::runtime {
struct DeviceInfo;
}

namespace foo_cl::launch {

struct AttentionDropout {
  double keep;  // 1 - dropout_p
  runtime::PhiloxState state;
};

// One attention's operands: q [B, H, L, DQK], k [B, H, S, DQK] and v [B, H, S, DV] of one dtype
// with any strides; the mask undefined, boolean (true keeps a score) or additive in the compute
// dtype, expanded to [B, H, L, S].
struct Attention {
  at::Tensor q, k, v, mask;
  bool causal;
  double scale;
  std::optional<AttentionDropout> dropout;
};

// The tuner's candidates for attention on a device, the default first: "composed" and the flash
// kernels' query and key blocks ("flash BM=4 BN=16"), which take more kernel argument bytes than
// the embedded profile's 256 (such devices take the composed path).
std::vector<std::string> attention_candidate_list(const runtime::DeviceInfo& info);

// out [B, H, L, DV] (any strides) in q's dtype, and lse [B, H, L] (each row's logsumexp of the
// probabilities before dropout, -inf for a row with nothing left) contiguous in the compute dtype.
void launch_attention(const Attention& a, const at::Tensor& out, const at::Tensor& lse);

struct AttentionGrads {
  at::Tensor dq, dk, dv;  // like their inputs (at::empty_like's layout), in their dtype, each when wanted
  at::Tensor d_scores;    // [B * H, L, S] in the compute dtype, when asked for (an additive mask's gradient)
};

// The gradients from dO [B, H, L, DV] and the forward's out and lse (any strides). Asking for `d_scores` takes the
// composed path, which has them.
AttentionGrads launch_attention_backward(const Attention& a, const at::Tensor& grad_out, const at::Tensor& out,
                                         const at::Tensor& lse, std::array<bool, 3> wanted, bool d_scores);

}  // namespace foo_cl::launch
