// optim/sgd: one fused SGD step (weight decay, momentum with dampening, Nesterov) over a
// parameter tensor, its gradient and momentum buffer (contiguous), in ACC, as PyTorch's fused
// kernel: an optional grad_scale divides the gradient (written back unscaled) and a nonzero
// found_inf skips the step. Build options: DT, ACC (dtype names), INDEX_T, MOMENTUM, FIRST_STEP,
// NESTEROV, MAXIMIZE, GRAD_SCALE, FOUND_INF.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

__kernel void sgd_step(__global char* param, ulong param_offset, __global char* grad, ulong grad_offset,
                       __global char* momentum_buffer, ulong momentum_buffer_offset, __global const char* grad_scale,
                       ulong grad_scale_offset, __global const char* found_inf, ulong found_inf_offset, acc_t lr,
                       acc_t weight_decay, acc_t momentum, acc_t dampening, INDEX_T n) {
#ifdef FOUND_INF
  if (*FOO_PTR(const float, found_inf, found_inf_offset) != 0) return;
#endif
  __global st* p = FOO_PTR(st, param, param_offset);
  __global st* g = FOO_PTR(st, grad, grad_offset);
  __global st* buf = FOO_PTR(st, momentum_buffer, momentum_buffer_offset);
  FOO_GRID_LOOP(i, n) {
    acc_t gi = FOO_CONVERT(DT, FOO_LOAD(DT, g, i));
#ifdef GRAD_SCALE
    gi /= (acc_t)*FOO_PTR(const float, grad_scale, grad_scale_offset);
    FOO_STORE(DT, g, i, gi);
#endif
#ifdef MAXIMIZE
    gi = -gi;
#endif
    const acc_t pi = FOO_CONVERT(DT, FOO_LOAD(DT, p, i));
    gi += weight_decay * pi;
#ifdef MOMENTUM
#ifdef FIRST_STEP
    const acc_t bi = gi;
#else
    const acc_t bi = momentum * (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, buf, i)) + (1 - dampening) * gi;
#endif
    FOO_STORE(DT, buf, i, bi);
#ifdef NESTEROV
    gi += momentum * bi;
#else
    gi = bi;
#endif
#endif
    FOO_STORE(DT, p, i, pi - lr * gi);
  }
}
