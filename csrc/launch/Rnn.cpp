#include "launch/Rnn.h"

#include "launch/Dtypes.h"
#include "launch/Launch.h"

#include <c10/core/DeviceGuard.h>

#include <initializer_list>
#include <string>

namespace foo_cl::launch {
namespace {

// A kernel of rnn/cells over the n = B * H hidden units of `state` ([B, H]), its tensors' buffers
// bound in order (an undefined one binds `state`'s, unread: its HAS_ option is off).
void launch_cell(const char* name, const at::Tensor& state, std::initializer_list<const at::Tensor*> tensors,
                 std::string options) {
  const int64_t n = state.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(state.device());
  KernelCall call(state.device().index(), "rnn/cells", name,
                  dtype_option("DT", state.scalar_type()) + index_option(n) + options);
  for (const at::Tensor* t : tensors) {
    TORCH_INTERNAL_ASSERT(!t->defined() || t->is_contiguous());
    call.buffer(or_unused(*t, state));
  }
  call.count(state.size(1)).count(n).launch(n);
}

std::string bias_option(const at::Tensor& bias) {
  return bias.defined() ? " -DHAS_BIAS" : "";
}

}  // namespace

void launch_lstm_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& input_bias,
                      const at::Tensor& hidden_bias, const at::Tensor& cx, const at::Tensor& hy, const at::Tensor& cy,
                      const at::Tensor& workspace) {
  launch_cell("lstm_cell", cx, {&input_gates, &hidden_gates, &input_bias, &hidden_bias, &cx, &hy, &cy, &workspace},
              bias_option(input_bias));
}

void launch_lstm_cell_backward(const at::Tensor& grad_hy, const at::Tensor& grad_cy, const at::Tensor& cx,
                               const at::Tensor& cy, const at::Tensor& workspace, const at::Tensor& grad_gates,
                               const at::Tensor& grad_cx) {
  launch_cell("lstm_cell_backward", cx, {&grad_hy, &grad_cy, &cx, &cy, &workspace, &grad_gates, &grad_cx},
              std::string(grad_hy.defined() ? " -DHAS_GRAD_HY" : "") + (grad_cy.defined() ? " -DHAS_GRAD_CY" : ""));
}

void launch_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& input_bias,
                     const at::Tensor& hidden_bias, const at::Tensor& hx, const at::Tensor& hy,
                     const at::Tensor& workspace) {
  launch_cell("gru_cell", hx, {&input_gates, &hidden_gates, &input_bias, &hidden_bias, &hx, &hy, &workspace},
              bias_option(input_bias));
}

void launch_gru_cell_backward(const at::Tensor& grad_hy, const at::Tensor& workspace,
                              const at::Tensor& grad_input_gates, const at::Tensor& grad_hidden_gates,
                              const at::Tensor& grad_hx) {
  launch_cell("gru_cell_backward", grad_hy, {&grad_hy, &workspace, &grad_input_gates, &grad_hidden_gates, &grad_hx},
              "");
}

}  // namespace foo_cl::launch
