// The fused LSTM and GRU cells. ATen's RNN layers (nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell) call
// these on every accelerator, PrivateUse1 included, and only CUDA and XPU implement them. Each is
// one kernel (launch/Rnn.h), with the workspace layouts of ATen's CUDA kernels, which the autograd
// formulas of derivatives.yaml read; the bias gradients are sums of the gate gradients.
#include "launch/Rnn.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sum.h>
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

at::Tensor contiguous_or_undefined(const at::Tensor& t) {
  return t.defined() ? t.contiguous() : t;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell(const at::Tensor& input_gates,
                                                               const at::Tensor& hidden_gates, const at::Tensor& cx,
                                                               const std::optional<at::Tensor>& input_bias,
                                                               const std::optional<at::Tensor>& hidden_bias) {
  const at::Tensor b_ih = or_undefined(input_bias), b_hh = or_undefined(hidden_bias);
  check_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates, b_ih, b_hh, cx, 4);
  const at::Tensor c = cx.contiguous();
  at::Tensor hy = at::empty_like(c), cy = at::empty_like(c);
  at::Tensor workspace = at::empty({c.size(0), 4 * c.size(1)}, c.options());
  launch::launch_lstm_cell(input_gates.contiguous(), hidden_gates.contiguous(), contiguous_or_undefined(b_ih),
                           contiguous_or_undefined(b_hh), c, hy, cy, workspace);
  return {std::move(hy), std::move(cy), std::move(workspace)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell_backward_impl(
    const std::optional<at::Tensor>& grad_hy_opt, const std::optional<at::Tensor>& grad_cy_opt, const at::Tensor& cx,
    const at::Tensor& cy, const at::Tensor& workspace, bool has_bias) {
  const at::Tensor grad_hy = or_undefined(grad_hy_opt), grad_cy = or_undefined(grad_cy_opt);
  if (!grad_hy.defined() && !grad_cy.defined()) return {};
  TORCH_CHECK(cx.dim() == 2 && cy.sizes() == cx.sizes() && workspace.dim() == 2 &&
                  workspace.size(0) == cx.size(0) && workspace.size(1) == 4 * cx.size(1),
              "_thnn_fused_lstm_cell_backward_impl: expected cx and cy [B, H] and a workspace of [B, 4 H], got ",
              cx.sizes(), ", ", cy.sizes(), " and ", workspace.sizes());
  at::Tensor grad_gates = at::empty({cx.size(0), 4 * cx.size(1)}, cx.options());
  at::Tensor grad_cx = at::empty_like(cx.contiguous());
  launch::launch_lstm_cell_backward(contiguous_or_undefined(grad_hy), contiguous_or_undefined(grad_cy),
                                    cx.contiguous(), cy.contiguous(), workspace.contiguous(), grad_gates, grad_cx);
  at::Tensor grad_bias = has_bias ? grad_gates.sum(0) : at::Tensor();
  return {std::move(grad_gates), std::move(grad_cx), std::move(grad_bias)};
}

std::tuple<at::Tensor, at::Tensor> fused_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                                                  const at::Tensor& hx, const std::optional<at::Tensor>& input_bias,
                                                  const std::optional<at::Tensor>& hidden_bias) {
  const at::Tensor b_ih = or_undefined(input_bias), b_hh = or_undefined(hidden_bias);
  check_cell("_thnn_fused_gru_cell", input_gates, hidden_gates, b_ih, b_hh, hx, 3);
  const at::Tensor h = hx.contiguous();
  at::Tensor hy = at::empty_like(h), workspace = at::empty({h.size(0), 5 * h.size(1)}, h.options());
  launch::launch_gru_cell(input_gates.contiguous(), hidden_gates.contiguous(), contiguous_or_undefined(b_ih),
                          contiguous_or_undefined(b_hh), h, hy, workspace);
  return {std::move(hy), std::move(workspace)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> fused_gru_cell_backward(
    const at::Tensor& grad_hy, const at::Tensor& workspace, bool has_bias) {
  TORCH_CHECK(grad_hy.dim() == 2 && workspace.dim() == 2 && workspace.size(0) == grad_hy.size(0) &&
                  workspace.size(1) == 5 * grad_hy.size(1),
              "_thnn_fused_gru_cell_backward: expected a workspace of [B, 5 H] for grad_hy [B, H], got ",
              workspace.sizes(), " and ", grad_hy.sizes());
  const at::Tensor grad = grad_hy.contiguous();
  at::Tensor grad_input_gates = at::empty({grad.size(0), 3 * grad.size(1)}, grad.options());
  at::Tensor grad_hidden_gates = at::empty_like(grad_input_gates), grad_hx = at::empty_like(grad);
  launch::launch_gru_cell_backward(grad, workspace.contiguous(), grad_input_gates, grad_hidden_gates, grad_hx);
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
