// scaled_dot_product_attention on foo: PyTorch's SDPA asks the device which backend to take
// (_fused_sdp_choice_stub); foo takes the overrideable one, implemented by launch/Attention.h (the
// composed path or the flash kernels, as the tuner timed them), with dropout through the Philox
// generator (the backward draws again from the saved seed and offset) and the backward from the
// saved logsumexp. Grouped-query attention and other ranks take PyTorch's math path.
#include "launch/Attention.h"
#include "launch/Dtypes.h"
#include "launch/Random.h"

#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace foo_cl::aten {
namespace {

using at::Tensor;

bool fusable_dtype(c10::ScalarType t) {
  return t == c10::kFloat || t == c10::kHalf || t == c10::kBFloat16 || t == c10::kDouble;
}

int64_t fused_sdp_choice(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& attn_mask,
                         double /*dropout_p*/, bool /*is_causal*/, std::optional<double> /*scale*/,
                         bool /*enable_gqa*/) {
  const bool fusable = at::globalContext().userEnabledOverrideableSDP() && q.dim() == 4 && k.dim() == 4 &&
                       v.dim() == 4 && k.size(0) == q.size(0) && v.size(0) == q.size(0) && k.size(1) == q.size(1) &&
                       v.size(1) == q.size(1) && k.size(2) == v.size(2) && k.size(3) == q.size(3) &&
                       fusable_dtype(q.scalar_type()) && k.scalar_type() == q.scalar_type() &&
                       v.scalar_type() == q.scalar_type() && !q.is_nested() &&
                       (!attn_mask || !attn_mask->defined() ||
                        (attn_mask->dim() <= 4 &&
                         (attn_mask->scalar_type() == c10::kBool || attn_mask->scalar_type() == q.scalar_type())));
  const at::SDPBackend choice = fusable ? at::SDPBackend::overrideable : at::SDPBackend::math;
  return static_cast<int64_t>(choice);
}

// The mask as the kernels read it: boolean, or additive in the compute dtype, expanded to [B, H, L, S].
Tensor mask_of(const std::optional<Tensor>& bias, const Tensor& q, int64_t S) {
  if (!bias || !bias->defined()) return Tensor();
  const Tensor m = bias->scalar_type() == c10::kBool ? *bias : bias->to(launch::compute_type(q.scalar_type()));
  return m.expand({q.size(0), q.size(1), q.size(2), S});
}

double scale_of(const Tensor& q, std::optional<double> scale) {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(3)));
}

void check_fusable(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p) {
  TORCH_CHECK(dropout_p >= 0 && dropout_p <= 1, "dropout probability has to be between 0 and 1, but got ", dropout_p);
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4 && k.size(0) == q.size(0) && v.size(0) == q.size(0) &&
                  k.size(1) == q.size(1) && v.size(1) == q.size(1) && k.size(2) == v.size(2) &&
                  k.size(3) == q.size(3),
              "foo-cl: the fused scaled_dot_product_attention takes [batch, heads, length, dim] query, key and value "
              "with one batch size and as many heads each, keys as long as values and as wide as queries, got ",
              q.sizes(), ", ", k.sizes(), " and ", v.sizes());
}

// What the meta functions (torch/_meta_registrations.py) give the fused attention's results, which
// compiled graphs check: the output in the query's memory order (alloc_with_matching_layout), each
// gradient like its input (empty_like). An empty tensor of `sizes` laid out so.
Tensor empty_matching(c10::IntArrayRef sizes, const Tensor& query, const at::TensorOptions& options) {
  if (sizes == query.sizes()) return at::empty_like(query, options);
  std::vector<int64_t> order(query.dim()), strides(query.dim());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return query.stride(a) > query.stride(b); });
  int64_t stride = 1;
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    strides[*d] = stride;
    stride *= sizes[*d];
  }
  return at::empty_strided(sizes, strides, options);
}

// `t` laid out as empty_matching lays it out: t itself when it is, else a copy.
Tensor in_matching_layout(const Tensor& t, const Tensor& query) {
  const Tensor like = empty_matching(t.sizes(), query, t.options());
  if (like.strides() == t.strides()) return t;
  return like.copy_(t);
}

launch::Attention attention_of(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                               std::optional<double> scale, std::optional<launch::AttentionDropout> dropout) {
  return {q, k, v, mask, causal, scale_of(q, scale), dropout};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, c10::SymInt, c10::SymInt, Tensor, Tensor, Tensor> attention(
    const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& attn_bias, double dropout_p,
    bool is_causal, bool return_debug_mask, std::optional<double> scale) {
  check_fusable(q, k, v, dropout_p);
  TORCH_CHECK(!return_debug_mask, "foo-cl: the fused scaled_dot_product_attention has no debug mask");
  TORCH_CHECK(!is_causal || !attn_bias || !attn_bias->defined(),
              "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  const c10::DeviceGuard guard(q.device());
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), S = k.size(2);
  std::optional<launch::AttentionDropout> dropout;
  // CPU scalars, as CUDA's fused kernels return them (the bits of the uint64 values); zeros without
  // dropout, where the meta function (and so a compiled graph) still expects tensors.
  Tensor philox_seed = at::scalar_tensor(0, at::kLong), philox_offset = at::scalar_tensor(0, at::kLong);
  if (dropout_p > 0) {
    dropout = launch::AttentionDropout{
        1 - dropout_p, launch::reserve_philox_tiles(std::nullopt, q.device().index(), B * H * L * S, /*bits=*/32)};
    philox_seed.fill_(static_cast<int64_t>(dropout->state.seed));
    philox_offset.fill_(static_cast<int64_t>(dropout->state.offset));
  }
  const Tensor lse = at::empty({B, H, L}, q.options().dtype(launch::compute_type(q.scalar_type())));
  const Tensor out = empty_matching({B, H, L, v.size(3)}, q, q.options());
  launch::launch_attention(attention_of(q, k, v, mask_of(attn_bias, q, S), is_causal, scale, dropout), out, lse);
  return {out, lse, Tensor(), Tensor(), L, S, philox_seed, philox_offset, Tensor()};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> attention_backward(
    const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& attn_bias,
    std::array<bool, 4> grad_input_mask, const Tensor& out, const Tensor& lse, const Tensor& /*cum_seq_q*/,
    const Tensor& /*cum_seq_k*/, int64_t /*max_q*/, int64_t /*max_k*/, double dropout_p, bool is_causal,
    const Tensor& philox_seed, const Tensor& philox_offset, std::optional<double> scale) {
  check_fusable(q, k, v, dropout_p);
  std::optional<launch::AttentionDropout> dropout;
  if (dropout_p > 0) {
    TORCH_CHECK(philox_seed.defined() && philox_offset.defined(),
                "foo-cl: the fused scaled_dot_product_attention backward with dropout needs the forward's philox_seed "
                "and philox_offset");
    dropout = launch::AttentionDropout{
        1 - dropout_p,
        {static_cast<uint64_t>(philox_seed.item<int64_t>()), static_cast<uint64_t>(philox_offset.item<int64_t>())}};
  }
  const c10::DeviceGuard guard(q.device());
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), S = k.size(2);
  const bool bias_grad = grad_input_mask[3] && attn_bias.defined() && attn_bias.is_floating_point();
  const Tensor mask = mask_of(attn_bias.defined() ? std::optional<Tensor>(attn_bias) : std::nullopt, q, S);
  const launch::AttentionGrads g = launch::launch_attention_backward(
      attention_of(q, k, v, mask, is_causal, scale, dropout), grad_out, out, lse.contiguous(),
      {grad_input_mask[0], grad_input_mask[1], grad_input_mask[2]}, bias_grad);
  const auto as_input = [](const Tensor& grad, const Tensor& input) {
    return grad.defined() ? in_matching_layout(grad, input) : grad;
  };
  Tensor d_bias;
  if (bias_grad) d_bias = g.d_scores.view({B, H, L, S}).sum_to_size(attn_bias.sizes()).to(attn_bias.scalar_type());
  return {as_input(g.dq, q), as_input(g.dk, k), as_input(g.dv, v), d_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fused_sdp_choice", fused_sdp_choice);
  m.impl("_scaled_dot_product_fused_attention_overrideable", attention);
  m.impl("_scaled_dot_product_fused_attention_overrideable_backward", attention_backward);
}

}  // namespace foo_cl::aten

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &foo_cl::aten::fused_sdp_choice)
}
