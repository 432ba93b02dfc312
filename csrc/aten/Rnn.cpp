// The fused LSTM and GRU cells. ATen's RNN layers (nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell) call
// these on every accelerator, PrivateUse1 included, and only CUDA and XPU implement them. Here they
// are composed of foo's pointwise kernels, with the workspace layouts of ATen's CUDA kernels, which
// the autograd formulas of derivatives.yaml read: LSTM [i, f, g, o] activated gates (B x 4H); GRU
// [r, z, n, hx, hidden n gate + bias] (B x 5H).
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

#include <tuple>

namespace foo_cl::aten {
namespace {

at::Tensor or_undefined(const std::optional<at::Tensor>& t) {
  return t.has_value() ? *t : at::Tensor();
}

// `factor` gates per hidden unit: 4 for LSTM, 3 for GRU. As ATen's CUDA checks, with foo's words.
void check_cell(const char* op, const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                const at::Tensor& input_bias, const at::Tensor& hidden_bias, const at::Tensor& prev, int64_t factor) {
  TORCH_CHECK(input_gates.dim() == 2 && input_gates.sizes() == hidden_gates.sizes(), op,
              ": input_gates and hidden_gates must be 2-d of one shape, got ", input_gates.sizes(), " and ",
              hidden_gates.sizes());
  for (const at::Tensor* t : {&hidden_gates, &input_bias, &hidden_bias, &prev}) {
    TORCH_CHECK(!t->defined() || t->scalar_type() == input_gates.scalar_type(), op,
                ": expected every tensor to be ", input_gates.scalar_type(), ", got ", t->scalar_type());
  }
  const int64_t gates = input_gates.size(1);
  TORCH_CHECK(gates % factor == 0, op, ": ", gates, " gate columns are not ", factor, " per hidden unit");
  TORCH_CHECK(input_bias.defined() == hidden_bias.defined(), op, ": give both biases or neither");
  if (input_bias.defined()) {
    TORCH_CHECK(input_bias.dim() == 1 && input_bias.numel() == gates && hidden_bias.sizes() == input_bias.sizes(), op,
                ": the biases must be 1-d of ", gates, " elements, got ", input_bias.sizes(), " and ",
                hidden_bias.sizes());
  }
  TORCH_CHECK(prev.dim() == 2 && prev.size(0) == input_gates.size(0) && prev.size(1) == gates / factor, op,
              ": the previous state must be [", input_gates.size(0), ", ", gates / factor, "], got ", prev.sizes());
}

at::Tensor gate_sums(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& input_bias,
                     const at::Tensor& hidden_bias) {
  at::Tensor gates = input_gates + hidden_gates;
  if (input_bias.defined()) gates.add_(input_bias).add_(hidden_bias);
  return gates;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell(const at::Tensor& input_gates,
                                                               const at::Tensor& hidden_gates, const at::Tensor& cx,
                                                               const std::optional<at::Tensor>& input_bias,
                                                               const std::optional<at::Tensor>& hidden_bias) {
  const at::Tensor b_ih = or_undefined(input_bias), b_hh = or_undefined(hidden_bias);
  check_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates, b_ih, b_hh, cx, 4);
  const int64_t h = cx.size(1);
  // The workspace is the gates, activated in place.
  at::Tensor workspace = gate_sums(input_gates, hidden_gates, b_ih, b_hh);
  workspace.narrow(1, 0, 2 * h).sigmoid_();
  workspace.narrow(1, 2 * h, h).tanh_();
  workspace.narrow(1, 3 * h, h).sigmoid_();
  const auto g = workspace.chunk(4, 1);
  at::Tensor cy = g[1] * cx;
  cy.addcmul_(g[0], g[2]);
  at::Tensor hy = g[3] * cy.tanh();
  return {std::move(hy), std::move(cy), std::move(workspace)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell_backward_impl(
    const std::optional<at::Tensor>& grad_hy_opt, const std::optional<at::Tensor>& grad_cy_opt, const at::Tensor& cx,
    const at::Tensor& cy, const at::Tensor& workspace, bool has_bias) {
  const at::Tensor given_grad_hy = or_undefined(grad_hy_opt), grad_cy = or_undefined(grad_cy_opt);
  if (!given_grad_hy.defined() && !grad_cy.defined()) return {};
  const at::Tensor grad_hy = given_grad_hy.defined() ? given_grad_hy : at::zeros_like(cy);
  const auto g = workspace.chunk(4, 1);  // i, f, g, o
  const at::Tensor tanh_cy = cy.tanh();
  // The gradient reaching cy: through hy = o * tanh(cy), plus grad_cy's own.
  at::Tensor grad_c = grad_hy * g[3] * (1 - tanh_cy * tanh_cy);
  if (grad_cy.defined()) grad_c.add_(grad_cy);
  at::Tensor grad_gates = at::cat({grad_c * g[2] * g[0] * (1 - g[0]), grad_c * cx * g[1] * (1 - g[1]),
                                   grad_c * g[0] * (1 - g[2] * g[2]), grad_hy * tanh_cy * g[3] * (1 - g[3])},
                                  1);
  at::Tensor grad_cx = grad_c * g[1];
  at::Tensor grad_bias = has_bias ? grad_gates.sum(0) : at::Tensor();
  return {std::move(grad_gates), std::move(grad_cx), std::move(grad_bias)};
}

std::tuple<at::Tensor, at::Tensor> fused_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                                                  const at::Tensor& hx, const std::optional<at::Tensor>& input_bias,
                                                  const std::optional<at::Tensor>& hidden_bias) {
  const at::Tensor b_ih = or_undefined(input_bias), b_hh = or_undefined(hidden_bias);
  check_cell("_thnn_fused_gru_cell", input_gates, hidden_gates, b_ih, b_hh, hx, 3);
  const int64_t h = hx.size(1);
  // r and z from both sides' sums; n = tanh(input n + r * (hidden n + its bias)).
  at::Tensor rz = gate_sums(input_gates.narrow(1, 0, 2 * h), hidden_gates.narrow(1, 0, 2 * h),
                            b_ih.defined() ? b_ih.narrow(0, 0, 2 * h) : b_ih,
                            b_hh.defined() ? b_hh.narrow(0, 0, 2 * h) : b_hh)
                       .sigmoid_();
  const at::Tensor r = rz.narrow(1, 0, h), z = rz.narrow(1, h, h);
  at::Tensor hidden_n = hidden_gates.narrow(1, 2 * h, h);
  if (b_hh.defined()) hidden_n = hidden_n + b_hh.narrow(0, 2 * h, h);
  at::Tensor n = input_gates.narrow(1, 2 * h, h) + r * hidden_n;
  if (b_ih.defined()) n.add_(b_ih.narrow(0, 2 * h, h));
  n.tanh_();
  at::Tensor hy = n + z * (hx - n);
  at::Tensor workspace = at::cat({rz, n, hx, hidden_n}, 1);
  return {std::move(hy), std::move(workspace)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> fused_gru_cell_backward(
    const at::Tensor& grad_hy, const at::Tensor& workspace, bool has_bias) {
  TORCH_CHECK(grad_hy.dim() == 2 && workspace.dim() == 2 && workspace.size(0) == grad_hy.size(0) &&
                  workspace.size(1) == 5 * grad_hy.size(1),
              "_thnn_fused_gru_cell_backward: expected a workspace of [B, 5 H] for grad_hy [B, H], got ",
              workspace.sizes(), " and ", grad_hy.sizes());
  const auto w = workspace.chunk(5, 1);  // r, z, n, hx, hidden n + bias
  const at::Tensor &r = w[0], &z = w[1], &n = w[2], &hx = w[3], &hidden_n = w[4];
  const at::Tensor grad_z = grad_hy * (hx - n) * (1 - z) * z;
  const at::Tensor grad_n = grad_hy * (1 - z) * (1 - n * n);
  const at::Tensor grad_r = grad_n * hidden_n * (1 - r) * r;
  at::Tensor grad_input_gates = at::cat({grad_r, grad_z, grad_n}, 1);
  at::Tensor grad_hidden_gates = at::cat({grad_r, grad_z, grad_n * r}, 1);
  at::Tensor grad_hx = grad_hy * z;
  at::Tensor grad_input_bias, grad_hidden_bias;
  if (has_bias) {
    grad_input_bias = grad_input_gates.sum(0);
    grad_hidden_bias = grad_hidden_gates.sum(0);
  }
  return {std::move(grad_input_gates), std::move(grad_hidden_gates), std::move(grad_hx), std::move(grad_input_bias),
          std::move(grad_hidden_bias)};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_thnn_fused_lstm_cell", fused_lstm_cell);
  m.impl("_thnn_fused_lstm_cell_backward_impl", fused_lstm_cell_backward_impl);
  m.impl("_thnn_fused_gru_cell", fused_gru_cell);
  m.impl("_thnn_fused_gru_cell_backward", fused_gru_cell_backward);
}

}  // namespace foo_cl::aten
