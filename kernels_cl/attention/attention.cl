// attention/attention: the row-wise steps of scaled_dot_product_attention between its products
// (csrc/launch/Attention.cpp). Scores are contiguous [B * H, L, S] in the compute dtype, row r
// being query r % L of batch and head r / L. attention_softmax masks a row (causal: key j > query
// i; a boolean mask's false; an additive mask's values), turns it into probabilities in place (a
// row with nothing left gives zeros, as PyTorch's safe softmax) and stores its logsumexp.
// attention_grad_scores recomputes the probabilities P from the scores and logsumexp, stores them
// over the scores, and turns dP into the scores' gradient P * (dP - delta), delta = sum(dO * O).
// With DROPOUT, score element e (row * S + j) is kept when uniform draw e of the Philox stream
// (seed, offset) is below p1m (the draws random/dropout makes) and then scaled by keep_scale: the
// forward drops probabilities after the softmax, and the backward redraws the same elements, stores
// the dropped P' (for dV = P'^T dO) and takes dP' (dO V^T) through the same drops.
// Build options: COMPUTE (float or double), LOCAL_SIZE, VEC (with LOCAL_SIZE 1), CAUSAL, MASK_BOOL or
// MASK_ADD, DROPOUT, INDEX_T (attention_grad_scores).
#include "attention/attention.clh"

#ifdef VEC
typedef FOO_CAT(FOO_COMPUTE(COMPUTE), VEC) VT;  // a work-item walks its row with VEC-wide vectors (CPU devices)
#endif

__kernel void attention_softmax(__global char* scores, ulong scores_offset, __global char* lse, ulong lse_offset,
                                FOO_MASK_PARAMS, ulong rows FOO_DROPOUT_PARAMS) {
  __local ct scratch[LOCAL_SIZE];
  const uint lid = get_local_id(0);
  FOO_GROUP_LOOP(row, rows) {
    __global ct* x = FOO_PTR(ct, scores, scores_offset) + row * S;
    __global const mask_t* mask_row = FOO_MASK_ROW(row);
    const ulong i = row % L;
    ct m = -INFINITY;
    for (ulong j = lid; j < S; j += LOCAL_SIZE) {
      const ct v = foo_masked_score(x[j], i, j, mask_row, mask_s);
      x[j] = v;
      m = fmax(m, v);
    }
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = LOCAL_SIZE / 2; step > 0; step >>= 1) {
      if (lid < step) scratch[lid] = fmax(scratch[lid], scratch[lid + step]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    ct s = 0;
    ulong j = lid;
#ifdef VEC
    if (m != -INFINITY) {
      VT sums = 0;
      for (; j + VEC <= S; j += VEC) {
        const VT e = exp(FOO_CAT(vload, VEC)(0, x + j) - m);
        FOO_CAT(vstore, VEC)(e, 0, x + j);
        sums += e;
      }
      for (int k = 0; k < VEC; ++k) s += ((ct*)&sums)[k];
    }
#endif
    for (; j < S; j += LOCAL_SIZE) {
      // NOTE: fmax passes over NaN: in a row of only NaN and masked scores, the NaNs stay.
      const ct e = m == -INFINITY ? (isnan(x[j]) ? x[j] : 0) : exp(x[j] - m);
      x[j] = e;
      s += e;
    }
    scratch[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = LOCAL_SIZE / 2; step > 0; step >>= 1) {
      if (lid < step) scratch[lid] += scratch[lid + step];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    s = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const ct scale = s != 0 ? 1 / s : 0;
    j = lid;
#ifdef VEC
    for (; j + VEC <= S; j += VEC) FOO_CAT(vstore, VEC)(FOO_CAT(vload, VEC)(0, x + j) * scale, 0, x + j);
#endif
    for (; j < S; j += LOCAL_SIZE) x[j] *= scale;
    if (lid == 0) FOO_PTR(ct, lse, lse_offset)[row] = s != 0 ? m + log(s) : -INFINITY;
#ifdef DROPOUT
    // The tiles of 32 draws that cover the row's elements row * S .. row * S + S - 1.
    barrier(CLK_GLOBAL_MEM_FENCE);
    const ulong first = row * S;
    for (ulong t = first / 32 + lid; t * 32 < first + S; t += LOCAL_SIZE) {
      float u[32];
      foo_dropout_draws(seed, offset, t, u);
      for (int k = 0; k < 32; ++k) {
        const ulong e = t * 32 + k;
        if (e >= first && e < first + S) x[e - first] *= u[k] < p1m ? keep_scale : 0;
      }
    }
#endif
  }
}

#ifdef INDEX_T
// Element e: P (times the dropout's scale `drop`, 0 for a dropped element) over the score, and the
// score's gradient from dP' in g.
#define FOO_GRAD_SCORE(e, drop)                                                    \
  do {                                                                             \
    const ulong row = (e) / S;                                                     \
    const ct l = lse_rows[row];                                                    \
    const ct v = foo_masked_score(x[e], row % L, (e) % S, FOO_MASK_ROW(row), mask_s); \
    const ct p = v == -INFINITY ? 0 : exp(v - l); /* also where l is NaN or -inf */ \
    x[e] = p * (drop);                                                             \
    g[e] = p * (g[e] * (drop) - delta_rows[row]);                                  \
  } while (0)

__kernel void attention_grad_scores(__global char* scores, ulong scores_offset, __global char* grad,
                                    ulong grad_offset, __global const char* lse, ulong lse_offset,
                                    __global const char* delta, ulong delta_offset, FOO_MASK_PARAMS,
                                    INDEX_T n FOO_DROPOUT_PARAMS) {
  __global ct* x = FOO_PTR(ct, scores, scores_offset);
  __global ct* g = FOO_PTR(ct, grad, grad_offset);
  __global const ct* lse_rows = FOO_PTR(const ct, lse, lse_offset);
  __global const ct* delta_rows = FOO_PTR(const ct, delta, delta_offset);
#ifdef DROPOUT
  const INDEX_T tiles = n / 32 + (n % 32 != 0);  // no overflow near the INDEX_T limit
  FOO_GRID_LOOP(t, tiles) {
    float u[32];
    foo_dropout_draws(seed, offset, t, u);
    const INDEX_T first = t * 32;
    for (int k = 0; k < 32 && k < n - first; ++k) FOO_GRAD_SCORE(first + k, u[k] < p1m ? keep_scale : 0);
  }
#else
  FOO_GRID_LOOP(e, n) { FOO_GRAD_SCORE(e, 1); }
#endif
}
#endif  // INDEX_T
