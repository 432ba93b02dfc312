// loss/nll_loss: negative log likelihood over [n, classes] log-probabilities (contiguous) with
// int64 targets. Forward writes each sample's loss -w[t] * x[t] and weight w[t] in the accumulate
// dtype ACC (0 for ignored targets); backward writes -w[t] * grad into a zeroed grad_input, grad
// being each sample's (NONE) or the reduced one divided by total weight (MEAN). A target outside
// [0, classes) that is not ignore_index reports FOO_ERROR_TARGET and counts as ignored. Build
// options: DT, ACC (dtype names), INDEX_T, WITH_WEIGHT, NONE, MEAN.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

// Whether target c names a class; reports it when it is neither a class nor ignore_index.
#define FOO_TARGET_IN_RANGE(c)                                            \
  ((c) != ignore_index && ((c) >= 0 && (c) < (long)classes ? true : (FOO_REPORT(FOO_ERROR_TARGET), false)))

inline acc_t foo_class_weight(__global const st* weight, long t) {
#ifdef WITH_WEIGHT
  return (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, weight, t));
#else
  return 1;
#endif
}

__kernel void nll_loss_forward(__global const char* input, ulong input_offset, __global const char* target,
                               ulong target_offset, __global const char* weight, ulong weight_offset,
                               __global char* losses, ulong losses_offset, __global char* weights,
                               ulong weights_offset, ulong classes, long ignore_index, FOO_ERROR_PARAM, INDEX_T n) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const long* t = FOO_PTR(const long, target, target_offset);
  __global const st* w = FOO_PTR(const st, weight, weight_offset);
  __global acc_t* loss = FOO_PTR(acc_t, losses, losses_offset);
  __global acc_t* wt = FOO_PTR(acc_t, weights, weights_offset);
  FOO_GRID_LOOP(i, n) {
    const long c = t[i];
    const bool counted = FOO_TARGET_IN_RANGE(c);
    const acc_t class_weight = counted ? foo_class_weight(w, c) : 0;
    wt[i] = class_weight;
    loss[i] = counted ? -class_weight * (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, x, i * classes + c)) : 0;
  }
}

__kernel void nll_loss_backward(__global char* grad_input, ulong grad_input_offset, __global const char* target,
                                ulong target_offset, __global const char* weight, ulong weight_offset,
                                __global const char* grad_output, ulong grad_output_offset,
                                __global const char* total_weight, ulong total_weight_offset, ulong classes,
                                long ignore_index, FOO_ERROR_PARAM, INDEX_T n) {
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  __global const long* t = FOO_PTR(const long, target, target_offset);
  __global const st* w = FOO_PTR(const st, weight, weight_offset);
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const st* total = FOO_PTR(const st, total_weight, total_weight_offset);
  FOO_GRID_LOOP(i, n) {
    const long c = t[i];
    if (!FOO_TARGET_IN_RANGE(c)) continue;
#ifdef NONE
    const acc_t grad = FOO_CONVERT(DT, FOO_LOAD(DT, gout, i));
#elif defined(MEAN)
    const acc_t grad = (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, gout, 0)) / (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, total, 0));
#else
    const acc_t grad = FOO_CONVERT(DT, FOO_LOAD(DT, gout, 0));
#endif
    FOO_STORE(DT, gin, i * classes + c, -foo_class_weight(w, c) * grad);
  }
}
