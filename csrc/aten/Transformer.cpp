// The inference fast paths of nn.MultiheadAttention and nn.TransformerEncoderLayer (eval mode, no
// autograd), which call these operators on CPU, CUDA and PrivateUse1 devices: _native_multi_head_attention,
// _transformer_encoder_layer_fwd (ATen's own device-generic implementation), and the pieces they
// use, _transform_bias_rescale_qkv and _masked_softmax (with its backward). Composed of foo's GEMM,
// softmax and attention kernels; results as the CPU's, NaN rows for fully masked ones included.
// nn.TransformerEncoder's nested-tensor path is declined (foo has no nested tensors).
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_masked_softmax.h>
#include <ATen/ops/_softmax_backward_data.h>
#include <ATen/ops/_transform_bias_rescale_qkv.h>
#include <ATen/ops/_transformer_encoder_layer_fwd_native.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/softmax.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <cmath>
#include <limits>
#include <tuple>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// The mask as a boolean tensor broadcastable to `input` (True: left out). mask_type 0 is an
// attention mask (L x L), 1 a key padding mask (B x L), anything else already input-shaped.
Tensor broadcast_mask(const Tensor& input, const Tensor& mask, std::optional<int64_t> mask_type) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "_masked_softmax: the mask must be a boolean tensor, got ",
              mask.scalar_type());
  if (mask.dim() != 2 || input.dim() != 4) mask_type = 2;
  if (mask_type == 0) {
    TORCH_CHECK(mask.size(0) == input.size(2) && mask.size(1) == input.size(2),
                "_masked_softmax: an attention mask (mask_type 0) must be (L, L) with L = ", input.size(2), ", got ",
                mask.sizes());
    return mask.view({1, 1, mask.size(0), mask.size(1)});
  }
  if (mask_type == 1) {
    TORCH_CHECK(mask.size(0) == input.size(0) && mask.size(1) == input.size(2),
                "_masked_softmax: a padding mask (mask_type 1) must be (B, L) = (", input.size(0), ", ", input.size(2),
                "), got ", mask.sizes());
    return mask.view({mask.size(0), 1, 1, mask.size(1)});
  }
  TORCH_CHECK(mask.sizes() == input.sizes(), "_masked_softmax: the mask must have the input's shape ", input.sizes(),
              ", got ", mask.sizes());
  return mask;
}

Tensor masked_softmax(const Tensor& input, const Tensor& mask, std::optional<int64_t> dim,
                      std::optional<int64_t> mask_type) {
  const int64_t d = c10::maybe_wrap_dim(dim.value_or(input.dim() - 1), input.dim());
  const Tensor masked =
      input.masked_fill(broadcast_mask(input, mask, mask_type), -std::numeric_limits<double>::infinity());
  return at::softmax(masked, d);
}

Tensor masked_softmax_backward(const Tensor& grad_output, const Tensor& output, const Tensor& mask,
                               std::optional<int64_t> dim) {
  // As on CPU and CUDA: autograd passes the forward's mask, which must then be input-shaped.
  TORCH_CHECK(mask.scalar_type() == at::kBool, "_masked_softmax_backward: the mask must be a boolean tensor, got ",
              mask.scalar_type());
  TORCH_CHECK(mask.sizes() == grad_output.sizes() && output.sizes() == grad_output.sizes(),
              "_masked_softmax_backward: the mask must have the gradient's shape ", grad_output.sizes(), ", got ",
              mask.sizes());
  const int64_t d = c10::maybe_wrap_dim(dim.value_or(output.dim() - 1), output.dim());
  return at::_softmax_backward_data(grad_output, output, d, output.scalar_type()).masked_fill_(mask, 0);
}

// q = (q + bias) / sqrt(head dim), k + bias, v + bias, each [B, heads, T, head dim], from [B, T, 3 D].
std::tuple<Tensor, Tensor, Tensor> transform_bias_rescale_qkv(const Tensor& qkv, const Tensor& qkv_bias,
                                                              int64_t num_heads) {
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(2) % 3 == 0 && qkv_bias.dim() == 1 && qkv_bias.size(0) == qkv.size(2),
              "_transform_bias_rescale_qkv: expected qkv [B, T, 3 D] and a bias of 3 D, got ", qkv.sizes(), " and ",
              qkv_bias.sizes());
  TORCH_CHECK(qkv_bias.scalar_type() == qkv.scalar_type(), "_transform_bias_rescale_qkv: the bias is ",
              qkv_bias.scalar_type(), " but qkv is ", qkv.scalar_type());
  const int64_t B = qkv.size(0), T = qkv.size(1), D = qkv.size(2) / 3;
  TORCH_CHECK(num_heads > 0 && D % num_heads == 0, "_transform_bias_rescale_qkv: ", num_heads,
              " heads do not divide the embedding dim ", D);
  const Tensor heads = (qkv + qkv_bias).view({B, T, 3, num_heads, D / num_heads}).permute({2, 0, 3, 1, 4});
  return {heads[0].mul(1.0 / std::sqrt(static_cast<double>(D / num_heads))).contiguous(), heads[1].contiguous(),
          heads[2].contiguous()};
}

std::tuple<Tensor, Tensor> native_multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       int64_t embed_dim, int64_t num_heads, const Tensor& qkv_weight,
                                                       const Tensor& qkv_bias, const Tensor& proj_weight,
                                                       const Tensor& proj_bias, const std::optional<Tensor>& mask,
                                                       bool need_weights, bool average_attn_weights,
                                                       std::optional<int64_t> mask_type) {
  TORCH_CHECK(!query.is_nested(), "_native_multi_head_attention: nested tensors are not supported on foo");
  TORCH_CHECK(query.dim() == 3 && query.size(2) == embed_dim, "_native_multi_head_attention: expected query [B, T, ",
              embed_dim, "], got ", query.sizes());
  TORCH_CHECK(key.sizes() == query.sizes() && value.sizes() == query.sizes(),
              "_native_multi_head_attention: expected query, key and value of one shape, got ", query.sizes(), ", ",
              key.sizes(), " and ", value.sizes());
  TORCH_CHECK(qkv_weight.dim() == 2 && qkv_weight.size(0) == 3 * embed_dim && qkv_weight.size(1) == embed_dim,
              "_native_multi_head_attention: expected qkv_weight [3 D, D] with D = ", embed_dim, ", got ",
              qkv_weight.sizes());
  const int64_t B = query.size(0), T = query.size(1);
  // The projections without bias (_transform_bias_rescale_qkv adds it): one GEMM for self-attention.
  Tensor qkv;
  if (query.is_same(key) && key.is_same(value)) {
    qkv = at::linear(query, qkv_weight);
  } else {
    const auto w = qkv_weight.chunk(3, 0);
    qkv = at::cat({at::linear(query, w[0]), at::linear(key, w[1]), at::linear(value, w[2])}, 2);
  }
  if (qkv.numel() == 0) return {at::empty_like(query), Tensor()};
  const auto [q, k, v] = at::_transform_bias_rescale_qkv(qkv, qkv_bias, num_heads);
  Tensor context, weights;
  if (!need_weights && !mask.has_value()) {
    context = at::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, /*scale=*/1.0);
  } else {
    const Tensor scores = at::matmul(q, k.transpose(-2, -1));
    weights = mask.has_value() ? at::_masked_softmax(scores, mask->to(at::kBool), scores.dim() - 1, mask_type)
                               : at::softmax(scores, -1);
    context = at::matmul(weights, v);
  }
  Tensor out = at::linear(context.transpose(1, 2).reshape({B, T, embed_dim}), proj_weight, proj_bias);
  if (!need_weights) return {std::move(out), Tensor()};
  if (average_attn_weights) weights = weights.sum(1).div_(num_heads);
  return {std::move(out), std::move(weights)};
}

// nn.TransformerEncoder's "sparsity fast path" turns a padded batch into a nested tensor when this
// says the padding mask is left-aligned, and it is this operator's only caller in PyTorch. foo has no
// nested tensors, so it answers no whatever the mask (deliberately: a direct caller asking about the
// mask's alignment gets a wrong answer): the encoder then runs its layers on the padded batch with
// the mask, which the fast paths above take.
bool nested_tensor_from_mask_left_aligned(const Tensor& padded, const Tensor& mask) {
  TORCH_CHECK(padded.dim() >= 2 && mask.dim() == 2 && mask.size(0) == padded.size(0) &&
                  mask.size(1) == padded.size(1),
              "_nested_tensor_from_mask_left_aligned: expected a (B, L) mask for a padded (B, L, ...) batch, got ",
              mask.sizes(), " and ", padded.sizes());
  return false;
}

Tensor nested_tensor_from_mask(const Tensor& /*padded*/, const Tensor& /*mask*/, bool /*mask_check*/) {
  TORCH_CHECK(false,
              "foo-cl: nested tensors are not supported on foo (nn.TransformerEncoder(..., mask_check=False) "
              "makes one from a padding mask in eval mode: keep mask_check=True or pass enable_nested_tensor=False)");
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_masked_softmax", masked_softmax);
  m.impl("_masked_softmax_backward", masked_softmax_backward);
  m.impl("_transform_bias_rescale_qkv", transform_bias_rescale_qkv);
  m.impl("_native_multi_head_attention", native_multi_head_attention);
  m.impl("_transformer_encoder_layer_fwd", at::native::transformer_encoder_layer_forward);
  m.impl("_nested_tensor_from_mask_left_aligned", nested_tensor_from_mask_left_aligned);
  m.impl("_nested_tensor_from_mask", nested_tensor_from_mask);
}

}  // namespace foo_cl::aten
