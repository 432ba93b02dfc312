// norm/norm_backward: input gradients of batch and layer normalisation over the block layout of
// norm/moments.cl (block b = j * groups + g of `inner` contiguous elements). With xhat = (x - mean)
// * rstd and gw = grad * weight (weight per element of the block: PER_ELEMENT, or per group):
// group_sums writes each group's sum(gw) and sum(gw * xhat); input_grad writes
// rstd * (gw - (sum(gw) + xhat * sum(gw * xhat)) / count) (or rstd * gw with EVAL, running
// statistics); weights in ACC. Work-items share input_grad's elements (foo_block_walk of
// norm/norm.clh). param_grads sums layer_norm's weight and bias gradients over rows. Build options:
// DT, ACC (dtype names), INDEX_T, LOCAL_SIZE, PER_ELEMENT, WITH_WEIGHT, EVAL, RMS.
#include "common.clh"
#include "norm/norm.clh"

typedef FOO_STORAGE(DT) st;

inline acc_t foo_weight_at(__global const acc_t* w, ulong g, ulong i) {
#ifdef WITH_WEIGHT
  return w[FOO_PARAM(g, i)];
#else
  return 1;
#endif
}

// Weights i, i + stride, ..., i + 7 * stride (foo_weight_at).
inline acc8_t foo_weight8_at(__global const acc_t* w, ulong g, ulong i, ulong stride) {
#if defined(WITH_WEIGHT) && defined(PER_ELEMENT)
  return (acc8_t)(w[i], w[i + stride], w[i + 2 * stride], w[i + 3 * stride], w[i + 4 * stride], w[i + 5 * stride],
                  w[i + 6 * stride], w[i + 7 * stride]);
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
        const acc8_t gw = FOO_LOAD8(dy_block, i) * foo_weight8_at(w, g, i, LOCAL_SIZE);
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
    INDEX_T i = at.i;
#if FOO_NORM_VECTORS
    for (; i + 8 <= at.i_end; i += 8) {
      const acc8_t gw = vload8(0, dy + base + i) * foo_weight8_at(w, at.g, i, 1);
#ifdef EVAL
      const acc8_t v = gw * scale;
#else
      const acc8_t xhat = (vload8(0, x + base + i) - mu) * scale;
      const acc8_t v = scale * (gw - mean_gw - xhat * mean_gw_xhat);
#endif
      vstore8(v, 0, dx + base + i);
    }
#endif
    for (; i < at.i_end; ++i) {
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

// layer_norm's (and with RMS rms_norm's) parameter gradients, summed over rows in chunks of a
// [rows, n] input: chunk k's sums of dy * xhat (the weight's) go to partial[k] and of dy (the
// bias's) to partial[chunks + k], rows of n, for the launcher to sum over k. Each reads dy and x
// once, eight elements a load (built with LOCAL_SIZE=1, so that FOO_LOAD8 reads consecutive
// elements on every device):
// - CPU devices: a work-item takes a chunk and walks its rows in order, adding each into the
//   chunk's partial rows (which stay in its cache);
// - elsewhere: a work-item takes eight columns of a chunk, summed in registers down its rows
//   (neighbouring work-items reading neighbouring columns).
#define FOO_SUM_AT(p, j, v) vstore8(vload8(0, (p) + (j)) + (v), 0, (p) + (j))

__kernel void param_grads(__global const char* grad, ulong grad_offset, __global const char* input, ulong input_offset,
                          __global const char* mean, ulong mean_offset, __global const char* rstd, ulong rstd_offset,
                          __global char* partial, ulong partial_offset, ulong rows, ulong n, ulong chunk,
                          INDEX_T units) {
  __global const st* dy = FOO_PTR(const st, grad, grad_offset);
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* m = FOO_PTR(const acc_t, mean, mean_offset);
  __global const acc_t* r = FOO_PTR(const acc_t, rstd, rstd_offset);
  __global acc_t* out = FOO_PTR(acc_t, partial, partial_offset);
  const ulong chunks = (rows + chunk - 1) / chunk;
#ifdef FOO_CPU_DEVICE
  FOO_GRID_LOOP(k, units) {
    __global acc_t* sum_w = out + k * n;
    __global acc_t* sum_b = out + (chunks + k) * n;
    for (ulong j = 0; j < n; ++j) sum_w[j] = sum_b[j] = 0;
    for (ulong row = k * chunk; row < min(rows, (k + 1) * chunk); ++row) {
#ifdef RMS
      const acc_t mu = 0;
#else
      const acc_t mu = m[row];
#endif
      const acc_t scale = r[row];
      __global const st* dy_row = dy + row * n;
      __global const st* x_row = x + row * n;
      ulong j = 0;
      for (; j + 8 <= n; j += 8) {
        const acc8_t d = FOO_LOAD8(dy_row, j);
        FOO_SUM_AT(sum_w, j, d * ((FOO_LOAD8(x_row, j) - mu) * scale));
        FOO_SUM_AT(sum_b, j, d);
      }
      for (; j < n; ++j) {
        const acc_t d = FOO_LOAD_ACC(dy_row, j);
        sum_w[j] += d * ((FOO_LOAD_ACC(x_row, j) - mu) * scale);
        sum_b[j] += d;
      }
    }
  }
#else
  const ulong column_blocks = (n + 7) / 8;
  FOO_GRID_LOOP(unit, units) {
    const ulong k = unit / column_blocks, j0 = unit % column_blocks * 8, end = min(rows, (k + 1) * chunk);
    const int columns = min((ulong)8, n - j0);
    acc8_t sum_w = 0, sum_b = 0;
    for (ulong row = k * chunk; row < end; ++row) {
#ifdef RMS
      const acc_t mu = 0;
#else
      const acc_t mu = m[row];
#endif
      const ulong at = row * n + j0;
      if (columns == 8) {
        const acc8_t d = FOO_LOAD8(dy, at);
        sum_w += d * ((FOO_LOAD8(x, at) - mu) * r[row]);
        sum_b += d;
      } else {
        for (int c = 0; c < columns; ++c) {
          const acc_t d = FOO_LOAD_ACC(dy, at + c);
          ((acc_t*)&sum_w)[c] += d * ((FOO_LOAD_ACC(x, at + c) - mu) * r[row]);
          ((acc_t*)&sum_b)[c] += d;
        }
      }
    }
    for (int c = 0; c < columns; ++c) {
      out[k * n + j0 + c] = ((acc_t*)&sum_w)[c];
      out[(chunks + k) * n + j0 + c] = ((acc_t*)&sum_b)[c];
    }
  }
#endif
}
