// norm/layer_norm: layer_norm's (and with RMS rms_norm's) forward in one launch. For each row of
// `inner` contiguous elements: the mean (zero with RMS), the biased variance (the mean square with
// RMS; a second pass over the row, which is still in cache), then the normalised row with the
// affine parameters, and the row's mean (not with RMS) and rstd. A work-group of LOCAL_SIZE items
// takes a row (one work-item on CPU devices, which walks it in order). Build options: DT, ACC
// (dtype names), LOCAL_SIZE, RMS, WITH_WEIGHT, WITH_BIAS.
#include "common.clh"
#include "norm/norm.clh"

typedef FOO_STORAGE(DT) st;

__kernel void layer_norm_rows(__global const char* input, ulong input_offset, __global const char* weight,
                              ulong weight_offset, __global const char* bias, ulong bias_offset,
                              __global char* output, ulong output_offset, __global char* mean, ulong mean_offset,
                              __global char* rstd, ulong rstd_offset, ulong rows, ulong inner, acc_t eps) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* w = FOO_PTR(const acc_t, weight, weight_offset);
  __global const acc_t* b = FOO_PTR(const acc_t, bias, bias_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  __global acc_t* m = FOO_PTR(acc_t, mean, mean_offset);
  __global acc_t* r = FOO_PTR(acc_t, rstd, rstd_offset);
  __local acc_t scratch[LOCAL_SIZE];
  const uint lid = get_local_id(0);
  FOO_GROUP_LOOP(row, rows) {
    __global const st* xr = x + row * inner;
    __global st* yr = out + row * inner;
    ulong i;
#ifdef RMS
    const acc_t mu = 0;
#else
    foo_sum sum = FOO_SUM_ZERO;
    for (i = lid; i + 7 * LOCAL_SIZE < inner; i += 8 * LOCAL_SIZE) foo_sum_add8(&sum, FOO_LOAD8(xr, i));
    for (; i < inner; i += LOCAL_SIZE) foo_sum_add(&sum, FOO_LOAD_ACC(xr, i));
    const acc_t mu = foo_group_sum(scratch, foo_sum_value(sum)) / (acc_t)inner;
#endif
    foo_sum squares = FOO_SUM_ZERO;
    for (i = lid; i + 7 * LOCAL_SIZE < inner; i += 8 * LOCAL_SIZE) {
      const acc8_t d = FOO_LOAD8(xr, i) - mu;
      foo_sum_add8(&squares, d * d);
    }
    for (; i < inner; i += LOCAL_SIZE) {
      const acc_t d = FOO_LOAD_ACC(xr, i) - mu;
      foo_sum_add(&squares, d * d);
    }
    // NOTE: 1 / sqrt, not rsqrt, whose accuracy varies by vendor (as unary/rsqrt).
    const acc_t scale = 1 / sqrt(foo_group_sum(scratch, foo_sum_value(squares)) / (acc_t)inner + eps);
    i = lid;
#if LOCAL_SIZE == 1
#if FOO_STORES8(DT)
    for (; i + 8 <= inner; i += 8) FOO_STORE8(yr, i, foo_affine8((FOO_LOAD8(xr, i) - mu) * scale, w, b, i));
#endif
#endif
    for (; i < inner; i += LOCAL_SIZE) FOO_STORE(DT, yr, i, foo_affine((FOO_LOAD_ACC(xr, i) - mu) * scale, w, b, i));
    if (lid == 0) {
#ifndef RMS
      m[row] = mu;
#endif
      r[row] = scale;
    }
  }
}
