// norm/norm_backward: input gradients of batch and layer normalisation over the block layout of
// norm/moments.cl (block b = j * groups + g of `inner` contiguous elements). With xhat = (x - mean)
// * rstd and gw = grad * weight (weight per element of the block: PER_ELEMENT, or per group):
// group_sums writes each group's sum(gw) and sum(gw * xhat); input_grad writes
// rstd * (gw - (sum(gw) + xhat * sum(gw * xhat)) / count) (or rstd * gw with EVAL, running
// statistics); weights in ACC. Work-items share input_grad's elements (foo_block_walk of
// norm/norm.clh). Build options: DT, ACC (dtype names), INDEX_T, LOCAL_SIZE, PER_ELEMENT,
// WITH_WEIGHT, EVAL.
#include "common.clh"
#include "norm/norm.clh"

typedef FOO_STORAGE(DT) st;

inline acc_t foo_weight_at(__global const acc_t* w, ulong g, ulong i) {
#ifdef WITH_WEIGHT
#ifdef PER_ELEMENT
  return w[i];
#else
  return w[g];
#endif
#else
  return 1;
#endif
}

// Weights i, i + LOCAL_SIZE, ..., i + 7 * LOCAL_SIZE (foo_weight_at).
inline acc8_t foo_weight8_at(__global const acc_t* w, ulong g, ulong i) {
#if defined(WITH_WEIGHT) && defined(PER_ELEMENT)
  return (acc8_t)(w[i], w[i + LOCAL_SIZE], w[i + 2 * LOCAL_SIZE], w[i + 3 * LOCAL_SIZE], w[i + 4 * LOCAL_SIZE],
                  w[i + 5 * LOCAL_SIZE], w[i + 6 * LOCAL_SIZE], w[i + 7 * LOCAL_SIZE]);
#else
  return (acc8_t)(foo_weight_at(w, g, i));
#endif
}

__kernel void group_sums(__global const char* grad, ulong grad_offset, __global const char* input,
                         ulong input_offset, __global const char* mean, ulong mean_offset, __global const char* rstd,
                         ulong rstd_offset, __global const char* weight, ulong weight_offset, __global char* sums,
                         ulong sums_offset, ulong groups, ulong outer, ulong inner) {
  __global const st* dy = FOO_PTR(const st, grad, grad_offset);
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* m = FOO_PTR(const acc_t, mean, mean_offset);
  __global const acc_t* r = FOO_PTR(const acc_t, rstd, rstd_offset);
  __global const acc_t* w = FOO_PTR(const acc_t, weight, weight_offset);
  __global acc_t* out = FOO_PTR(acc_t, sums, sums_offset);  // [groups, 2]
  __local acc_t scratch[LOCAL_SIZE];
  const uint lid = get_local_id(0);
  FOO_GROUP_LOOP(g, groups) {
    const acc_t mu = m[g], scale = r[g];
    foo_sum sum_gw = FOO_SUM_ZERO, sum_gw_xhat = FOO_SUM_ZERO;
    for (ulong j = 0; j < outer; ++j) {
      __global const st* dy_block = dy + (j * groups + g) * inner;
      __global const st* x_block = x + (j * groups + g) * inner;
      ulong i = lid;
      for (; i + 7 * LOCAL_SIZE < inner; i += 8 * LOCAL_SIZE) {
        const acc8_t gw = FOO_LOAD8(dy_block, i) * foo_weight8_at(w, g, i);
        foo_sum_add8(&sum_gw, gw);
        foo_sum_add8(&sum_gw_xhat, gw * (FOO_LOAD8(x_block, i) - mu) * scale);
      }
      for (; i < inner; i += LOCAL_SIZE) {
        const acc_t gw = FOO_LOAD_ACC(dy_block, i) * foo_weight_at(w, g, i);
        foo_sum_add(&sum_gw, gw);
        foo_sum_add(&sum_gw_xhat, gw * (FOO_LOAD_ACC(x_block, i) - mu) * scale);
      }
    }
    const acc_t total_gw = foo_group_sum(scratch, foo_sum_value(sum_gw));
    const acc_t total_gw_xhat = foo_group_sum(scratch, foo_sum_value(sum_gw_xhat));
    if (lid == 0) {
      out[2 * g] = total_gw;
      out[2 * g + 1] = total_gw_xhat;
    }
  }
}

__kernel void input_grad(__global const char* grad, ulong grad_offset, __global const char* input, ulong input_offset,
                         __global const char* mean, ulong mean_offset, __global const char* rstd, ulong rstd_offset,
                         __global const char* weight, ulong weight_offset, __global const char* sums,
                         ulong sums_offset, __global char* grad_input, ulong grad_input_offset, ulong groups,
                         ulong inner, acc_t count, INDEX_T n) {
  __global const st* dy = FOO_PTR(const st, grad, grad_offset);
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* m = FOO_PTR(const acc_t, mean, mean_offset);
  __global const acc_t* r = FOO_PTR(const acc_t, rstd, rstd_offset);
  __global const acc_t* w = FOO_PTR(const acc_t, weight, weight_offset);
  __global const acc_t* s = FOO_PTR(const acc_t, sums, sums_offset);
  __global st* dx = FOO_PTR(st, grad_input, grad_input_offset);
  foo_block_walk at;
  for (foo_block_walk_begin(&at, n, (INDEX_T)inner, (INDEX_T)groups); at.e < at.end; foo_block_walk_next(&at)) {
    const acc_t scale = r[at.g];
#ifndef EVAL
    const acc_t mu = m[at.g], mean_gw = s[2 * at.g] / count, mean_gw_xhat = s[2 * at.g + 1] / count;
#endif
    const INDEX_T base = at.block * (INDEX_T)inner;
    for (INDEX_T i = at.i; i < at.i_end; ++i) {
      const acc_t gw = (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, dy, base + i)) * foo_weight_at(w, at.g, i);
#ifdef EVAL
      const acc_t v = gw * scale;
#else
      const acc_t xhat = ((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, x, base + i)) - mu) * scale;
      const acc_t v = scale * (gw - mean_gw - xhat * mean_gw_xhat);
#endif
      FOO_STORE(DT, dx, base + i, v);
    }
  }
}
