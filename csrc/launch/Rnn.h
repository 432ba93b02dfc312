// The fused recurrent-cell launchers (kernels_cl/rnn/cells.cl): an LSTM or GRU cell, or its
// backward, in one kernel over contiguous [B, gates * H] gates and [B, H] states, with ATen's CUDA
// workspace layouts. Biases and incoming gradients may be undefined (absent).
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

void launch_lstm_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& input_bias,
                      const at::Tensor& hidden_bias, const at::Tensor& cx, const at::Tensor& hy, const at::Tensor& cy,
                      const at::Tensor& workspace);

void launch_lstm_cell_backward(const at::Tensor& grad_hy, const at::Tensor& grad_cy, const at::Tensor& cx,
                               const at::Tensor& cy, const at::Tensor& workspace, const at::Tensor& grad_gates,
                               const at::Tensor& grad_cx);

void launch_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& input_bias,
                     const at::Tensor& hidden_bias, const at::Tensor& hx, const at::Tensor& hy,
                     const at::Tensor& workspace);

void launch_gru_cell_backward(const at::Tensor& grad_hy, const at::Tensor& workspace,
                              const at::Tensor& grad_input_gates, const at::Tensor& grad_hidden_gates,
                              const at::Tensor& grad_hx);

}  // namespace foo_cl::launch
