// rnn/cells: the fused LSTM and GRU cells (aten::_thnn_fused_lstm_cell, _thnn_fused_gru_cell) and
// their backward, one work-item per hidden unit of a batch row (i = row * H + j), computed in the
// compute dtype of DT (float for float16 and bfloat16), with the workspace layouts of ATen's CUDA
// kernels: LSTM [i, f, g, o] activated gates (rows of 4 H), GRU [r, z, n, hx, hidden n + bias]
// (rows of 5 H). Contiguous tensors. Build options: DT, INDEX_T, HAS_BIAS (forward),
// HAS_GRAD_HY and HAS_GRAD_CY (LSTM backward: the incoming gradients autograd gave).
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#define LD(p, i) ((ct)FOO_LOAD(DT, p, i))
#define IN(name) __global const char *name##_, ulong name##_offset
#define OUT(name) __global char *name##_, ulong name##_offset
#define PTR(name) __global const st* name = FOO_PTR(const st, name##_, name##_offset)
#define OUT_PTR(name) __global st* name = FOO_PTR(st, name##_, name##_offset)

inline ct foo_sigmoid(ct x) {
  return (ct)1 / ((ct)1 + exp(-x));
}

__kernel void lstm_cell(IN(input_gates), IN(hidden_gates), IN(input_bias), IN(hidden_bias), IN(cx), OUT(hy), OUT(cy),
                        OUT(workspace), INDEX_T h, INDEX_T n) {
  PTR(input_gates);
  PTR(hidden_gates);
  PTR(input_bias);
  PTR(hidden_bias);
  PTR(cx);
  OUT_PTR(hy);
  OUT_PTR(cy);
  OUT_PTR(workspace);
  FOO_GRID_LOOP(i, n) {
    const INDEX_T j = i % h, g = (i / h) * 4 * h + j;
    ct gate[4];
    for (int k = 0; k < 4; ++k) {
      gate[k] = LD(input_gates, g + k * h) + LD(hidden_gates, g + k * h);
#ifdef HAS_BIAS
      gate[k] += LD(input_bias, j + k * h) + LD(hidden_bias, j + k * h);
#endif
    }
    const ct in = foo_sigmoid(gate[0]), forget = foo_sigmoid(gate[1]), cell = tanh(gate[2]),
             out = foo_sigmoid(gate[3]);
    const ct c = forget * LD(cx, i) + in * cell;
    FOO_STORE(DT, cy, i, c);
    FOO_STORE(DT, hy, i, out * tanh(c));
    FOO_STORE(DT, workspace, g, in);
    FOO_STORE(DT, workspace, g + h, forget);
    FOO_STORE(DT, workspace, g + 2 * h, cell);
    FOO_STORE(DT, workspace, g + 3 * h, out);
  }
}

__kernel void lstm_cell_backward(IN(grad_hy), IN(grad_cy), IN(cx), IN(cy), IN(workspace), OUT(grad_gates),
                                 OUT(grad_cx), INDEX_T h, INDEX_T n) {
  PTR(grad_hy);
  PTR(grad_cy);
  PTR(cx);
  PTR(cy);
  PTR(workspace);
  OUT_PTR(grad_gates);
  OUT_PTR(grad_cx);
  FOO_GRID_LOOP(i, n) {
    const INDEX_T g = (i / h) * 4 * h + i % h;
    const ct in = LD(workspace, g), forget = LD(workspace, g + h), cell = LD(workspace, g + 2 * h),
             out = LD(workspace, g + 3 * h);
    const ct tanh_c = tanh(LD(cy, i));
#ifdef HAS_GRAD_HY
    const ct dh = LD(grad_hy, i);
#else
    const ct dh = 0;
#endif
    // The gradient reaching cy: through hy = out * tanh(cy), plus grad_cy's own.
    ct dc = dh * out * ((ct)1 - tanh_c * tanh_c);
#ifdef HAS_GRAD_CY
    dc += LD(grad_cy, i);
#endif
    FOO_STORE(DT, grad_gates, g, dc * cell * in * ((ct)1 - in));
    FOO_STORE(DT, grad_gates, g + h, dc * LD(cx, i) * forget * ((ct)1 - forget));
    FOO_STORE(DT, grad_gates, g + 2 * h, dc * in * ((ct)1 - cell * cell));
    FOO_STORE(DT, grad_gates, g + 3 * h, dh * tanh_c * out * ((ct)1 - out));
    FOO_STORE(DT, grad_cx, i, dc * forget);
  }
}

__kernel void gru_cell(IN(input_gates), IN(hidden_gates), IN(input_bias), IN(hidden_bias), IN(hx), OUT(hy),
                       OUT(workspace), INDEX_T h, INDEX_T n) {
  PTR(input_gates);
  PTR(hidden_gates);
  PTR(input_bias);
  PTR(hidden_bias);
  PTR(hx);
  OUT_PTR(hy);
  OUT_PTR(workspace);
  FOO_GRID_LOOP(i, n) {
    const INDEX_T j = i % h, g = (i / h) * 3 * h + j, w = (i / h) * 5 * h + j;
    ct reset = LD(input_gates, g) + LD(hidden_gates, g);
    ct update = LD(input_gates, g + h) + LD(hidden_gates, g + h);
    ct input_new = LD(input_gates, g + 2 * h), hidden_new = LD(hidden_gates, g + 2 * h);
#ifdef HAS_BIAS
    reset += LD(input_bias, j) + LD(hidden_bias, j);
    update += LD(input_bias, j + h) + LD(hidden_bias, j + h);
    input_new += LD(input_bias, j + 2 * h);
    hidden_new += LD(hidden_bias, j + 2 * h);
#endif
    reset = foo_sigmoid(reset);
    update = foo_sigmoid(update);
    const ct new_gate = tanh(input_new + reset * hidden_new), h0 = LD(hx, i);
    FOO_STORE(DT, hy, i, new_gate + update * (h0 - new_gate));
    FOO_STORE(DT, workspace, w, reset);
    FOO_STORE(DT, workspace, w + h, update);
    FOO_STORE(DT, workspace, w + 2 * h, new_gate);
    FOO_STORE(DT, workspace, w + 3 * h, h0);
    FOO_STORE(DT, workspace, w + 4 * h, hidden_new);
  }
}

__kernel void gru_cell_backward(IN(grad_hy), IN(workspace), OUT(grad_input_gates), OUT(grad_hidden_gates),
                                OUT(grad_hx), INDEX_T h, INDEX_T n) {
  PTR(grad_hy);
  PTR(workspace);
  OUT_PTR(grad_input_gates);
  OUT_PTR(grad_hidden_gates);
  OUT_PTR(grad_hx);
  FOO_GRID_LOOP(i, n) {
    const INDEX_T j = i % h, g = (i / h) * 3 * h + j, w = (i / h) * 5 * h + j;
    const ct reset = LD(workspace, w), update = LD(workspace, w + h), new_gate = LD(workspace, w + 2 * h);
    const ct h0 = LD(workspace, w + 3 * h), hidden_new = LD(workspace, w + 4 * h), dh = LD(grad_hy, i);
    const ct d_update = dh * (h0 - new_gate) * ((ct)1 - update) * update;
    const ct d_new = dh * ((ct)1 - update) * ((ct)1 - new_gate * new_gate);
    const ct d_reset = d_new * hidden_new * ((ct)1 - reset) * reset;
    FOO_STORE(DT, grad_input_gates, g, d_reset);
    FOO_STORE(DT, grad_input_gates, g + h, d_update);
    FOO_STORE(DT, grad_input_gates, g + 2 * h, d_new);
    FOO_STORE(DT, grad_hidden_gates, g, d_reset);
    FOO_STORE(DT, grad_hidden_gates, g + h, d_update);
    FOO_STORE(DT, grad_hidden_gates, g + 2 * h, d_new * reset);
    FOO_STORE(DT, grad_hx, i, dh * update);
  }
}
