// attention/flash: scaled_dot_product_attention as blocked kernels with an online softmax and no
// score matrix in memory (FlashAttention-2, Dao 2023); csrc/launch/Attention.cpp times them against
// the composed path (attention/attention between two products) and takes the faster.
//
// Scores are kept as BN-wide vectors along keys, for a tile of BN keys at a time:
// - flash_forward: a work-item takes BM queries of one batch and head and walks the key tiles,
//   keeping each query's running maximum m, sum l and output acc, rescaled as m grows; then
//   out = acc / l and lse = m + log l (a row with nothing left gives zeros and -inf, a NaN score NaNs).
// - flash_grad_query: BM queries again, P = exp(S - lse) recomputed per tile, and
//   dQ = scale * sum_j dS_ij K_j with dS = P * (dP' - delta), dP' = (dO V^T) dropped as P' was.
// - flash_grad_key_value: a work-item takes BN keys and walks the queries BM at a time:
//   dV = sum_i P'_ij dO_i and dK = scale * sum_i dS_ij Q_i.
// Dropout and masks are those of attention/attention (attention.clh), so the paths agree draw for draw.
//
// Operands are in the compute dtype: q [B, H, L, DQK], k [B, H, S, DQK], v [B, H, S, DV], out and dO
// [B, H, L, DV], and the gradients dq, dk and dv like their inputs, each with any strides along its
// first three dims (a foo_rows) and its rows contiguous, so that the heads of a projection's output
// are read where they are; lse and delta [BH * L] are contiguous, and kt [BH, DQK, SP] and vt [BH,
// DV, SP] are K and V transposed, their rows padded with zeros to SP (a multiple of BN) so that a
// key tile is one load.
// Build options: COMPUTE (float or double), DQK, DV, BM, BN (a vector width, 2 to 16), VQ and VV
// (vector widths, 2 to 16, dividing DQK and DV), CAUSAL, MASK_BOOL or MASK_ADD, DROPOUT, INDEX_T.
// NOTE: products are written `s += x * v`, not fma((vector)x, v, s): LLVM 15 (PoCL 3, Debian 12)
// crashed in its loop-invariant code motion on the broadcast fma.
#include "attention/attention.clh"

#ifndef BM
#define BM 4  // queries per work-item
#endif
#ifndef BN
#define BN 16  // keys per tile
#endif
#define FOO_VLOAD(n, p) FOO_CAT(vload, n)(0, p)
#define FOO_VSTORE(n, v, p) FOO_CAT(vstore, n)(v, 0, p)
// Loops over the BM rows or a row's vectors, unrolled so their arrays stay in registers.
#define FOO_UNROLL _Pragma("unroll")

typedef FOO_CAT(FOO_COMPUTE(COMPUTE), BN) tile_t;  // one query's scores for a tile of keys
typedef FOO_CAT(FOO_COMPUTE(COMPUTE), VQ) qk_t;    // VQ elements of a query or key row
typedef FOO_CAT(FOO_COMPUTE(COMPUTE), VV) vo_t;    // VV elements of a value or output row

// Where row i of batch-and-head bh of an operand starts: element strides along batch, head and row.
typedef struct {
  long b, h, row;
} foo_rows;
#define FOO_ROW(rows, bh, i) ((long)((bh) / heads) * (rows).b + (long)((bh) % heads) * (rows).h + (long)(i) * (rows).row)

// A tile's largest score and its sum, folded in halves (BN 16 -> 8 -> 4 -> 2 -> 1).
#define FOO_FOLD(name, combine) \
  inline ct name(tile_t s) {    \
    FOLD_16_TO_8(s, combine)    \
    FOLD_8_TO_4(combine)        \
    FOLD_4_TO_2(combine)        \
    return combine(s2.x, s2.y); \
  }
#if BN == 16
#define FOLD_16_TO_8(s, combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 8) s8 = combine(s.lo, s.hi);
#elif BN == 8
#define FOLD_16_TO_8(s, combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 8) s8 = s;
#else
#define FOLD_16_TO_8(s, combine)
#endif
#if BN >= 8
#define FOLD_8_TO_4(combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 4) s4 = combine(s8.lo, s8.hi);
#elif BN == 4
#define FOLD_8_TO_4(combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 4) s4 = s;
#else
#define FOLD_8_TO_4(combine)
#endif
#if BN >= 4
#define FOLD_4_TO_2(combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 2) s2 = combine(s4.lo, s4.hi);
#else
#define FOLD_4_TO_2(combine) const FOO_CAT(FOO_COMPUTE(COMPUTE), 2) s2 = s;
#endif
#define FOO_PLUS(a, b) ((a) + (b))
FOO_FOLD(foo_tile_max, fmax)
FOO_FOLD(foo_tile_sum, FOO_PLUS)

// A tile's lanes as integers of the compute dtype's width, for select: 0 .. BN - 1 along keys.
#ifdef FOO_COMPUTE_IS_DOUBLE
#define FOO_LANES_T FOO_CAT(long, BN)
#else
#define FOO_LANES_T FOO_CAT(int, BN)
#endif
typedef FOO_LANES_T lanes_t;
#define FOO_LANES_2 ((lanes_t)(0, 1))
#define FOO_LANES_4 ((lanes_t)(0, 1, 2, 3))
#define FOO_LANES_8 ((lanes_t)(0, 1, 2, 3, 4, 5, 6, 7))
#define FOO_LANES_16 ((lanes_t)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define FOO_KEY_LANES FOO_CAT(FOO_LANES_, BN)

// Query i's scores for keys j0 .. j0 + BN - 1 with the masks applied and keys from S on removed;
// a tile wholly inside the kept scores is returned as it is.
inline tile_t foo_mask_tile(tile_t s, ulong i, ulong j0, ulong S, __global const mask_t* mask_row, long mask_s) {
#if !defined(MASK_BOOL) && !defined(MASK_ADD)
  // Keys from `limit` on are hidden: one select across the tile (the causal diagonal's tiles, the last).
#ifdef CAUSAL
  const ulong limit = min(S, i + 1);
#else
  const ulong limit = S;
#endif
  if (j0 + BN <= limit) return s;
  const long kept = clamp((long)limit - (long)j0, 0L, (long)BN);
  return select(s, (tile_t)(-INFINITY), FOO_KEY_LANES >= (lanes_t)kept);
#else
  ct a[BN];
  FOO_VSTORE(BN, s, a);
  for (int c = 0; c < BN; ++c) a[c] = j0 + c < S ? foo_masked_score(a[c], i, j0 + c, mask_row, mask_s) : -INFINITY;
  return FOO_VLOAD(BN, a);
#endif
}

#ifdef DROPOUT
// A row's last tile of 32 draws: consecutive key tiles of a row share one when BN is 16 or less.
typedef struct {
  ulong t;
  float u[32];
} foo_draws;

// The 32 draws of Philox tile t (foo_dropout_draws), kept for the row's next key tile.
inline const float* foo_tile_draws(ulong seed, ulong offset, ulong t, foo_draws* d) {
  if (t != d->t) {
    foo_dropout_draws(seed, offset, t, d->u);
    d->t = t;
  }
  return d->u;
}

// What dropout multiplies the elements of row `row`, keys j0 .. j0 + BN - 1, by: keep_scale, or 0 for
// a dropped one (and for keys from S on, which draw nothing). A tile of keys inside S whose draws
// lie in one tile of 32 compares them as one vector.
inline tile_t foo_drop_tile(ulong seed, ulong offset, ulong row, ulong j0, ulong S, float p1m, ct keep_scale,
                            foo_draws* d) {
  const ulong e0 = row * S + j0;
  if (j0 + BN <= S && e0 % 32 + BN <= 32) {
    const FOO_CAT(float, BN) u = FOO_VLOAD(BN, foo_tile_draws(seed, offset, e0 / 32, d) + e0 % 32);
    return select((tile_t)0, (tile_t)keep_scale, FOO_CAT(convert_, FOO_LANES_T)(u < p1m));
  }
  ct f[BN];
  for (int c = 0; c < BN; ++c) {
    const ulong e = e0 + c;
    f[c] = j0 + c < S && foo_tile_draws(seed, offset, e / 32, d)[e % 32] < p1m ? keep_scale : 0;
  }
  return FOO_VLOAD(BN, f);
}
#define FOO_DRAWS(name) \
  foo_draws name[BM];   \
  for (int k_ = 0; k_ < BM; ++k_) name[k_].t = ULONG_MAX
#define FOO_DROP(row, j0, draws) foo_drop_tile(seed, offset, row, j0, S, p1m, keep_scale, draws)
#else
#define FOO_DRAWS(name)
#define FOO_DROP(row, j0, draws) ((tile_t)1)
#endif

// s[r] = sum over d < D of rows[r * RS + d] * t[d * SP ..]: BM rows (RS apart) against a tile of
// transposed keys (or values).
#define FOO_TILE_PRODUCTS(s, rows, RS, D, t)                                         \
  do {                                                                               \
    FOO_UNROLL for (int r = 0; r < BM; ++r) s[r] = 0;                                \
    for (int d = 0; d < (D); ++d) {                                                  \
      const tile_t column = FOO_VLOAD(BN, (t) + d * SP);                             \
      FOO_UNROLL for (int r = 0; r < BM; ++r) s[r] += (rows)[r * (RS) + d] * column; \
    }                                                                                \
  } while (0)

// acc[r][k] += sum over keys c < `keys` of w[r][c] * rows[c * RS + k * V ..]: BM rows of weights
// against the tile's value (or key) rows (RS apart), V-wide vectors along them.
#define FOO_ADD_WEIGHTED_ROWS(acc, w, rows, RS, D, V, keys)                                      \
  for (int c_ = 0; c_ < (keys); ++c_) {                                                          \
    FOO_UNROLL for (int k_ = 0; k_ < (D) / (V); ++k_) {                                          \
      const FOO_CAT(FOO_COMPUTE(COMPUTE), V) row_ = FOO_VLOAD(V, (rows) + c_ * (RS) + k_ * (V)); \
      FOO_UNROLL for (int r_ = 0; r_ < BM; ++r_) acc[r_][k_] += w[r_][c_] * row_;                \
    }                                                                                            \
  }

// BM rows (RS apart) from src into a private array (`scale` times), zeros from row `count` on.
#define FOO_LOAD_ROWS(dst, src, RS, count, D, scale) \
  for (int r = 0; r < BM; ++r)                       \
    for (int d = 0; d < (D); ++d) dst[r * (D) + d] = r < (count) ? (scale) * (src)[r * (RS) + d] : 0

// The key tiles a block of queries i0 .. i0 + count - 1 sees: causal masking hides keys after the last.
inline ulong foo_keys_seen(ulong i0, int count, ulong S) {
#ifdef CAUSAL
  return min(S, i0 + count);
#else
  return S;
#endif
}

// kt [BH, D, SP]: t [B, H, S, D] transposed, zeros from key S on; a work-item per tile of BN keys.
__kernel void flash_transpose(__global const char* t_base, ulong t_offset, foo_rows t_rows, ulong heads,
                              __global char* kt_base, ulong kt_offset, ulong S, ulong D, ulong SP, INDEX_T units) {
  __global const ct* t = FOO_PTR(const ct, t_base, t_offset);
  __global ct* kt = FOO_PTR(ct, kt_base, kt_offset);
  const ulong tiles = SP / BN;
  FOO_GRID_LOOP(unit, units) {
    const ulong bh = unit / tiles, j0 = unit % tiles * BN;
    __global const ct* first = t + FOO_ROW(t_rows, bh, j0);
    for (ulong d = 0; d < D; ++d) {
      ct a[BN];
      for (int c = 0; c < BN; ++c) a[c] = j0 + c < S ? first[c * t_rows.row + d] : 0;
      FOO_VSTORE(BN, FOO_VLOAD(BN, a), kt + (bh * D + d) * SP + j0);
    }
  }
}

__kernel void flash_forward(__global const char* q_base, ulong q_offset, __global const char* kt_base, ulong kt_offset,
                            __global const char* v_base, ulong v_offset, __global char* out_base, ulong out_offset,
                            __global char* lse_base, ulong lse_offset, foo_rows q_rows, foo_rows v_rows,
                            foo_rows out_rows, FOO_MASK_PARAMS, ulong SP, ct scale, INDEX_T units FOO_DROPOUT_PARAMS) {
  __global const ct* q = FOO_PTR(const ct, q_base, q_offset);
  __global const ct* kt = FOO_PTR(const ct, kt_base, kt_offset);
  __global const ct* v = FOO_PTR(const ct, v_base, v_offset);
  const ulong blocks = (L + BM - 1) / BM;
  FOO_GRID_LOOP(unit, units) {
    const ulong bh = unit / blocks, i0 = unit % blocks * BM, first = bh * L + i0;
    const int count = min((ulong)BM, L - i0);
    ct qs[BM * DQK];
    FOO_LOAD_ROWS(qs, q + FOO_ROW(q_rows, bh, i0), q_rows.row, count, DQK, scale);
    ct m[BM], l[BM];
    vo_t acc[BM][DV / VV];
    FOO_UNROLL for (int r = 0; r < BM; ++r) {
      m[r] = -INFINITY;
      l[r] = 0;
      FOO_UNROLL for (int k = 0; k < DV / VV; ++k) acc[r][k] = 0;
    }
    FOO_DRAWS(draws);
    const ulong end = foo_keys_seen(i0, count, S);
    for (ulong j0 = 0; j0 < end; j0 += BN) {
      tile_t s[BM];
      FOO_TILE_PRODUCTS(s, qs, DQK, DQK, kt + bh * DQK * SP + j0);
      ct p[BM][BN];
      FOO_UNROLL for (int r = 0; r < BM; ++r) {
        const tile_t sr =
            r < count ? foo_mask_tile(s[r], i0 + r, j0, S, FOO_MASK_ROW(first + r), mask_s) : (tile_t)(-INFINITY);
        const ct mt = fmax(m[r], foo_tile_max(sr));
        tile_t pr = 0;
        if (mt != -INFINITY) {  // else nothing is kept yet
          const ct alpha = exp(m[r] - mt);
          pr = exp(sr - mt);
          l[r] = l[r] * alpha + foo_tile_sum(pr);
          m[r] = mt;
          FOO_UNROLL for (int k = 0; k < DV / VV; ++k) acc[r][k] *= alpha;
          pr *= FOO_DROP(first + r, j0, &draws[r]);
        } else if (any(isnan(sr))) {
          l[r] = NAN;  // NOTE: fmax passes over NaN: a row whose scores so far are NaN or masked keeps its NaN here
        }
        FOO_VSTORE(BN, pr, p[r]);
      }
      FOO_ADD_WEIGHTED_ROWS(acc, p, v + FOO_ROW(v_rows, bh, j0), v_rows.row, DV, VV, min((ulong)BN, S - j0));
    }
    __global ct* out = FOO_PTR(ct, out_base, out_offset) + FOO_ROW(out_rows, bh, i0);
    __global ct* lse = FOO_PTR(ct, lse_base, lse_offset) + first;
    for (int r = 0; r < count; ++r) {
      const ct inv = l[r] != 0 ? 1 / l[r] : 0;  // a NaN sum stays NaN, as the CPU's
      for (int k = 0; k < DV / VV; ++k) FOO_VSTORE(VV, acc[r][k] * inv, out + r * out_rows.row + k * VV);
      lse[r] = l[r] != 0 ? m[r] + log(l[r]) : -INFINITY;
    }
  }
}

// Query i's probabilities P for a key tile, and with dP (dO V^T) its scores' gradient dS, P' the
// dropped probabilities into *kept.
inline tile_t foo_grad_tile(tile_t s, tile_t dp, ct lse, ct delta, ulong i, ulong j0, ulong S,
                            __global const mask_t* mask_row, long mask_s, tile_t drop, tile_t* kept) {
  // Masked scores have no probability, also in a row whose lse is NaN (or -inf: all masked).
  const tile_t masked = foo_mask_tile(s, i, j0, S, mask_row, mask_s);
  const tile_t p = select(exp(masked - lse), (tile_t)0, masked == (tile_t)(-INFINITY));
  *kept = p * drop;
  return p * (dp * drop - delta);
}

__kernel void flash_grad_query(__global const char* q_base, ulong q_offset, __global const char* kt_base,
                               ulong kt_offset, __global const char* k_base, ulong k_offset,
                               __global const char* vt_base, ulong vt_offset, __global const char* dout_base,
                               ulong dout_offset, __global const char* lse_base, ulong lse_offset,
                               __global const char* delta_base, ulong delta_offset, __global char* dq_base,
                               ulong dq_offset, foo_rows q_rows, foo_rows k_rows, foo_rows dout_rows,
                               foo_rows dq_rows, FOO_MASK_PARAMS, ulong SP, ct scale, INDEX_T units FOO_DROPOUT_PARAMS) {
  __global const ct* q = FOO_PTR(const ct, q_base, q_offset);
  __global const ct* kt = FOO_PTR(const ct, kt_base, kt_offset);
  __global const ct* k = FOO_PTR(const ct, k_base, k_offset);
  __global const ct* vt = FOO_PTR(const ct, vt_base, vt_offset);
  __global const ct* dout = FOO_PTR(const ct, dout_base, dout_offset);
  __global const ct* lse = FOO_PTR(const ct, lse_base, lse_offset);
  __global const ct* delta = FOO_PTR(const ct, delta_base, delta_offset);
  const ulong blocks = (L + BM - 1) / BM;
  FOO_GRID_LOOP(unit, units) {
    const ulong bh = unit / blocks, i0 = unit % blocks * BM, first = bh * L + i0;
    const int count = min((ulong)BM, L - i0);
    ct qs[BM * DQK], dos[BM * DV];
    FOO_LOAD_ROWS(qs, q + FOO_ROW(q_rows, bh, i0), q_rows.row, count, DQK, scale);
    FOO_LOAD_ROWS(dos, dout + FOO_ROW(dout_rows, bh, i0), dout_rows.row, count, DV, 1);
    qk_t acc[BM][DQK / VQ];
    FOO_UNROLL for (int r = 0; r < BM; ++r) FOO_UNROLL for (int d = 0; d < DQK / VQ; ++d) acc[r][d] = 0;
    FOO_DRAWS(draws);
    const ulong end = foo_keys_seen(i0, count, S);
    for (ulong j0 = 0; j0 < end; j0 += BN) {
      tile_t s[BM], dp[BM];
      FOO_TILE_PRODUCTS(s, qs, DQK, DQK, kt + bh * DQK * SP + j0);
      FOO_TILE_PRODUCTS(dp, dos, DV, DV, vt + bh * DV * SP + j0);
      ct ds[BM][BN];
      FOO_UNROLL for (int r = 0; r < BM; ++r) {
        tile_t kept;
        const tile_t g = r < count
                             ? foo_grad_tile(s[r], dp[r], lse[first + r], delta[first + r], i0 + r, j0, S,
                                             FOO_MASK_ROW(first + r), mask_s, FOO_DROP(first + r, j0, &draws[r]), &kept)
                             : (tile_t)0;
        FOO_VSTORE(BN, g, ds[r]);
      }
      FOO_ADD_WEIGHTED_ROWS(acc, ds, k + FOO_ROW(k_rows, bh, j0), k_rows.row, DQK, VQ, min((ulong)BN, S - j0));
    }
    __global ct* dq = FOO_PTR(ct, dq_base, dq_offset) + FOO_ROW(dq_rows, bh, i0);
    for (int r = 0; r < count; ++r)
      for (int d = 0; d < DQK / VQ; ++d) FOO_VSTORE(VQ, acc[r][d] * scale, dq + r * dq_rows.row + d * VQ);
  }
}

// t[d] += sum over r < BM of w[r] * rows[r * RS + d]: a key tile's (transposed) gradient from BM rows.
#define FOO_ADD_OUTER(t, w, rows, RS, D)                                        \
  for (int d = 0; d < (D); ++d) {                                               \
    tile_t sum = t[d];                                                          \
    FOO_UNROLL for (int r = 0; r < BM; ++r) sum += w[r] * (rows)[r * (RS) + d]; \
    t[d] = sum;                                                                 \
  }

// Stores `keys` rows (RS apart) of D from t (element d of the keys, transposed), times `scale`, at dst.
#define FOO_STORE_KEY_ROWS(dst, RS, t, D, scale, keys)           \
  for (int d = 0; d < (D); ++d) {                                \
    ct a[BN];                                                    \
    FOO_VSTORE(BN, t[d] * (scale), a);                           \
    for (int c = 0; c < (keys); ++c) (dst)[c * (RS) + d] = a[c]; \
  }

// Adds the contributions of queries i0 .. i0 + count - 1 (rows `first` on, their q and dO rows at
// q_block and do_block, q_rs and do_rs apart) to the key tile's dK and dV.
#define FOO_KEY_VALUE_BLOCK(q_block, q_rs, do_block, do_rs)                                                   \
  do {                                                                                                        \
    tile_t s[BM], dp[BM], ds[BM], kept[BM];                                                                   \
    FOO_DRAWS(draws);                                                                                         \
    FOO_TILE_PRODUCTS(s, q_block, q_rs, DQK, kt + bh * DQK * SP + j0);                                        \
    FOO_TILE_PRODUCTS(dp, do_block, do_rs, DV, vt + bh * DV * SP + j0);                                       \
    FOO_UNROLL for (int r = 0; r < BM; ++r) {                                                                 \
      kept[r] = ds[r] = 0;                                                                                    \
      if (r < count)                                                                                          \
        ds[r] = foo_grad_tile(s[r] * scale, dp[r], lse[first + r], delta[first + r], i0 + r, j0, S,           \
                              FOO_MASK_ROW(first + r), mask_s, FOO_DROP(first + r, j0, &draws[r]), &kept[r]); \
    }                                                                                                         \
    FOO_ADD_OUTER(dvt, kept, do_block, do_rs, DV);                                                            \
    FOO_ADD_OUTER(dkt, ds, q_block, q_rs, DQK);                                                               \
  } while (0)

__kernel void flash_grad_key_value(__global const char* q_base, ulong q_offset, __global const char* kt_base,
                                   ulong kt_offset, __global const char* vt_base, ulong vt_offset,
                                   __global const char* dout_base, ulong dout_offset, __global const char* lse_base,
                                   ulong lse_offset, __global const char* delta_base, ulong delta_offset,
                                   __global char* dk_base, ulong dk_offset, __global char* dv_base, ulong dv_offset,
                                   foo_rows q_rows, foo_rows dout_rows, foo_rows dk_rows, foo_rows dv_rows,
                                   FOO_MASK_PARAMS, ulong SP, ct scale, INDEX_T units FOO_DROPOUT_PARAMS) {
  __global const ct* q = FOO_PTR(const ct, q_base, q_offset);
  __global const ct* kt = FOO_PTR(const ct, kt_base, kt_offset);
  __global const ct* vt = FOO_PTR(const ct, vt_base, vt_offset);
  __global const ct* dout = FOO_PTR(const ct, dout_base, dout_offset);
  __global const ct* lse = FOO_PTR(const ct, lse_base, lse_offset);
  __global const ct* delta = FOO_PTR(const ct, delta_base, delta_offset);
  const ulong tiles = SP / BN;
  FOO_GRID_LOOP(unit, units) {
    const ulong bh = unit / tiles, j0 = unit % tiles * BN;
    tile_t dkt[DQK], dvt[DV];  // dK and dV transposed: element d of the tile's keys
    for (int d = 0; d < DQK; ++d) dkt[d] = 0;
    for (int d = 0; d < DV; ++d) dvt[d] = 0;
#ifdef CAUSAL
    const ulong start = j0;  // earlier queries see none of the tile's keys
#else
    const ulong start = 0;
#endif
    for (ulong i0 = start; i0 < L; i0 += BM) {
      const ulong first = bh * L + i0;
      const int count = min((ulong)BM, L - i0);
      __global const ct* q_block = q + FOO_ROW(q_rows, bh, i0);
      __global const ct* do_block = dout + FOO_ROW(dout_rows, bh, i0);
      if (count == BM) {
        FOO_KEY_VALUE_BLOCK(q_block, q_rows.row, do_block, dout_rows.row);
      } else {  // the last block, through zero-padded copies
        ct qs[BM * DQK], dos[BM * DV];
        FOO_LOAD_ROWS(qs, q_block, q_rows.row, count, DQK, 1);
        FOO_LOAD_ROWS(dos, do_block, dout_rows.row, count, DV, 1);
        FOO_KEY_VALUE_BLOCK(qs, DQK, dos, DV);
      }
    }
    const int keys = min((ulong)BN, S - j0);
    FOO_STORE_KEY_ROWS(FOO_PTR(ct, dk_base, dk_offset) + FOO_ROW(dk_rows, bh, j0), dk_rows.row, dkt, DQK, scale, keys);
    FOO_STORE_KEY_ROWS(FOO_PTR(ct, dv_base, dv_offset) + FOO_ROW(dv_rows, bh, j0), dv_rows.row, dvt, DV, 1, keys);
  }
}
