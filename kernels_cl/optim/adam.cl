// optim/adam: one fused Adam (ADAMW: decoupled weight decay) step over a parameter tensor and its
// gradient and moments (contiguous), in the accumulate dtype ACC, as PyTorch's fused kernels: an
// optional grad_scale divides the gradient (written back unscaled) and a nonzero found_inf skips
// the step. With VEC (float32 or float64 tensors) work-items update 8 elements at a time.
// Build options: DT, ACC, STEP (dtype names), INDEX_T, VEC, ADAMW, AMSGRAD, MAXIMIZE, GRAD_SCALE,
// FOUND_INF.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

// One update of p, g, m, v (and vmax) of type T, a scalar or vector of acc_t; `grad_scale` is 1
// without GRAD_SCALE. Returns nothing: the T lvalues are updated in place.
#ifdef AMSGRAD
#define FOO_AMSGRAD_DENOM(vmax, v) (vmax = fmax(vmax, v), sqrt(vmax))
#else
#define FOO_AMSGRAD_DENOM(vmax, v) sqrt(v)
#endif
#ifdef MAXIMIZE
#define FOO_DIRECTION(g) (-(g))
#else
#define FOO_DIRECTION(g) (g)
#endif
#ifdef ADAMW
#define FOO_DECAY(p, g) (p -= lr * weight_decay * p, g)
#else
#define FOO_DECAY(p, g) (g + weight_decay * p)
#endif
#define FOO_ADAM_UPDATE(p, g, m, v, vmax)                                                        \
  do {                                                                                           \
    g /= scale;                                                                                  \
    const __typeof__(g) d = FOO_DECAY(p, FOO_DIRECTION(g));                                      \
    m = beta1 * m + (1 - beta1) * d;                                                             \
    v = beta2 * v + (1 - beta2) * d * d;                                                         \
    p -= step_size * m / (FOO_AMSGRAD_DENOM(vmax, v) / bias_correction2_sqrt + eps);             \
  } while (0)

__kernel void adam_step(__global char* param, ulong param_offset, __global char* grad, ulong grad_offset,
                        __global char* exp_avg, ulong exp_avg_offset, __global char* exp_avg_sq,
                        ulong exp_avg_sq_offset, __global char* max_exp_avg_sq, ulong max_exp_avg_sq_offset,
                        __global const char* step, ulong step_offset, __global const char* grad_scale,
                        ulong grad_scale_offset, __global const char* found_inf, ulong found_inf_offset, acc_t lr,
                        acc_t beta1, acc_t beta2, acc_t log_beta1, acc_t log_beta2, acc_t weight_decay, acc_t eps,
                        INDEX_T n) {
#ifdef FOUND_INF
  if (*FOO_PTR(const float, found_inf, found_inf_offset) != 0) return;
#endif
#ifdef GRAD_SCALE
  const acc_t scale = *FOO_PTR(const float, grad_scale, grad_scale_offset);
#else
  const acc_t scale = 1;
#endif
  __global st* restrict p = FOO_PTR(st, param, param_offset);
  __global st* restrict g = FOO_PTR(st, grad, grad_offset);
  __global st* restrict m = FOO_PTR(st, exp_avg, exp_avg_offset);
  __global st* restrict v = FOO_PTR(st, exp_avg_sq, exp_avg_sq_offset);
  __global st* restrict vmax = FOO_PTR(st, max_exp_avg_sq, max_exp_avg_sq_offset);
  const acc_t t = (acc_t)FOO_LOAD(STEP, FOO_PTR(const FOO_STORAGE(STEP), step, step_offset), 0);
  // NOTE: 1 - beta^t as -expm1(t * log(beta)): every work-item computes it, and pow is slow on some
  // CPU runtimes (PoCL); it is also the more accurate form.
  const acc_t step_size = lr / -expm1(t * log_beta1);
  const acc_t bias_correction2_sqrt = sqrt(-expm1(t * log_beta2));
  INDEX_T first_scalar = 0;
#ifdef VEC
  typedef FOO_CAT(FOO_COMPUTE(ACC), 8) acc8;
  const INDEX_T vectors = n / 8;
  FOO_GRID_LOOP(i, vectors) {
    acc8 pi = vload8(i, p), gi = vload8(i, g), mi = vload8(i, m), vi = vload8(i, v);
#ifdef AMSGRAD
    acc8 vmi = vload8(i, vmax);
#endif
    FOO_ADAM_UPDATE(pi, gi, mi, vi, vmi);
#ifdef GRAD_SCALE
    vstore8(gi, i, g);
#endif
    vstore8(pi, i, p);
    vstore8(mi, i, m);
    vstore8(vi, i, v);
#ifdef AMSGRAD
    vstore8(vmi, i, vmax);
#endif
  }
  first_scalar = vectors * 8;
  if (get_global_id(0) != 0) return;  // the first work-item takes the last n % 8 elements
  for (INDEX_T i = first_scalar; i < n; ++i) {
#else
  FOO_GRID_LOOP(i, n) {
#endif
    acc_t pi = FOO_CONVERT(DT, FOO_LOAD(DT, p, i)), gi = FOO_CONVERT(DT, FOO_LOAD(DT, g, i));
    acc_t mi = FOO_CONVERT(DT, FOO_LOAD(DT, m, i)), vi = FOO_CONVERT(DT, FOO_LOAD(DT, v, i));
#ifdef AMSGRAD
    acc_t vmi = FOO_CONVERT(DT, FOO_LOAD(DT, vmax, i));
#endif
    FOO_ADAM_UPDATE(pi, gi, mi, vi, vmi);
#ifdef GRAD_SCALE
    FOO_STORE(DT, g, i, gi);
#endif
    FOO_STORE(DT, p, i, pi);
    FOO_STORE(DT, m, i, mi);
    FOO_STORE(DT, v, i, vi);
#ifdef AMSGRAD
    FOO_STORE(DT, vmax, i, vmi);
#endif
  }
}
