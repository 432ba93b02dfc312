// optim/adam: one fused Adam (ADAMW: decoupled weight decay) step over a parameter tensor and its
// gradient and moments (contiguous), in the accumulate dtype ACC, as PyTorch's fused kernels: an
// optional grad_scale divides the gradient (written back unscaled) and a nonzero found_inf skips
// the step. Build options: DT, ACC, STEP (dtype names), INDEX_T, ADAMW, AMSGRAD, MAXIMIZE,
// GRAD_SCALE, FOUND_INF.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

__kernel void adam_step(__global char* param, ulong param_offset, __global char* grad, ulong grad_offset,
                        __global char* exp_avg, ulong exp_avg_offset, __global char* exp_avg_sq,
                        ulong exp_avg_sq_offset, __global char* max_exp_avg_sq, ulong max_exp_avg_sq_offset,
                        __global const char* step, ulong step_offset, __global const char* grad_scale,
                        ulong grad_scale_offset, __global const char* found_inf, ulong found_inf_offset, acc_t lr,
                        acc_t beta1, acc_t beta2, acc_t weight_decay, acc_t eps, INDEX_T n) {
#ifdef FOUND_INF
  if (*FOO_PTR(const float, found_inf, found_inf_offset) != 0) return;
#endif
  __global st* restrict p = FOO_PTR(st, param, param_offset);
  __global st* restrict g = FOO_PTR(st, grad, grad_offset);
  __global st* restrict m = FOO_PTR(st, exp_avg, exp_avg_offset);
  __global st* restrict v = FOO_PTR(st, exp_avg_sq, exp_avg_sq_offset);
  __global st* vmax = FOO_PTR(st, max_exp_avg_sq, max_exp_avg_sq_offset);
  const acc_t t = (acc_t)FOO_LOAD(STEP, FOO_PTR(const FOO_STORAGE(STEP), step, step_offset), 0);
  const acc_t step_size = lr / (1 - pow(beta1, t));
  const acc_t bias_correction2_sqrt = sqrt(1 - pow(beta2, t));
  FOO_GRID_LOOP(i, n) {
    acc_t gi = FOO_CONVERT(DT, FOO_LOAD(DT, g, i));
#ifdef GRAD_SCALE
    gi /= (acc_t)*FOO_PTR(const float, grad_scale, grad_scale_offset);
    FOO_STORE(DT, g, i, gi);
#endif
#ifdef MAXIMIZE
    gi = -gi;
#endif
    acc_t pi = FOO_CONVERT(DT, FOO_LOAD(DT, p, i));
#ifdef ADAMW
    pi -= lr * weight_decay * pi;
#else
    gi += weight_decay * pi;
#endif
    const acc_t mi = beta1 * (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, m, i)) + (1 - beta1) * gi;
    const acc_t vi = beta2 * (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, v, i)) + (1 - beta2) * gi * gi;
    FOO_STORE(DT, m, i, mi);
    FOO_STORE(DT, v, i, vi);
#ifdef AMSGRAD
    const acc_t vmi = fmax((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, vmax, i)), vi);
    FOO_STORE(DT, vmax, i, vmi);
    const acc_t denom = sqrt(vmi) / bias_correction2_sqrt + eps;
#else
    const acc_t denom = sqrt(vi) / bias_correction2_sqrt + eps;
#endif
    FOO_STORE(DT, p, i, pi - step_size * mi / denom);
  }
}
