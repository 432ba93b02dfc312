// blas/gemm: C = alpha * A @ B + beta * D for a batch of strided matrices (strides in elements, so
// transposes and broadcast batches need no copies); beta == 0 ignores D (even its NaNs). Three tiled
// kernels, whose parameters the tuner (csrc/tune/) picks per device and shape class.
//
// gemm_nn: B's rows are contiguous. A work-item computes a TM x (NV * VW) tile, broadcasting A's
//   elements against VW-wide vectors of B; rows past M repeat row M - 1 and are not stored, and a
//   work-item wholly past M or past the last tile (the padding of a group) skips the products. With KC,
//   K is walked in blocks of KC with a barrier between them, so the work-items of a group (LM x LN)
//   share each block of A and B while it is in cache (a CPU device runs a group on one core). With
//   PACKED, B comes packed by the launcher in panels of NV * VW columns, each panel's K rows one
//   after another: a block of a panel is contiguous, where B's own rows a power of two apart would
//   all fall in the same few cache sets. With TAIL, the launch covers only the columns past the last
//   whole tile (N narrowed to them, as one tile): B's lanes past column N - 1 repeat it and are not
//   stored.
// gemm_nt: rows of A and columns of B are contiguous along K; a work-item computes TM x TN dot
//   products on VW-wide vectors along K, in blocks of KC as gemm_nn does.
// gemm_local: any strides; a group of RM x RN work-items stages KW-deep tiles of A and B in local
//   memory and each work-item computes WM x WN outputs spaced RM and RN apart (GPU-style).
// Build options: COMPUTE (float or double: every matrix is of that dtype); TM, NV, VW, KC, PACKED,
// TAIL (gemm_nn); TM, TN, VW, KC (gemm_nt); RM, RN, WM, WN, KW (gemm_local). A program is built for
// one kernel's options.
#include "compute.clh"
#include "blas/gemm_shape.h"

inline ct foo_epilogue(ct acc, ct alpha, ct beta, __global const ct* D, long d_index) {
  return beta == 0 ? alpha * acc : alpha * acc + beta * D[d_index];
}

#define FOO_GEMM_OPERANDS                                               \
  __global ct* C = FOO_PTR(ct, c, c_offset) + batch * s.c_b;            \
  __global const ct* A = FOO_PTR(const ct, a, a_offset) + batch * s.a_b; \
  __global const ct* B = FOO_PTR(const ct, b, b_offset) + batch * s.b_b; \
  __global const ct* D = FOO_PTR(const ct, d, d_offset) + batch * s.d_b

#define FOO_GEMM_PARAMS                                                                           \
  __global char *c, ulong c_offset, __global const char *a, ulong a_offset, __global const char *b, \
      ulong b_offset, __global const char *d, ulong d_offset, foo_gemm_shape s, ct alpha, ct beta

#ifdef NV
#define VT FOO_CAT(FOO_COMPUTE(COMPUTE), VW)
#define VLOAD(p) FOO_CAT(vload, VW)(0, p)

#if TAIL
// Lanes first .. first + VW - 1 of a row of B, those past column n - 1 repeating it.
inline VT foo_clamped_lanes(__global const ct* row, long first, long n, long stride) {
  ct lanes[VW];
#pragma unroll
  for (int l = 0; l < VW; ++l) lanes[l] = row[min(first + l, n - 1) * stride];
  return VLOAD(lanes);
}
#endif

// The launcher passes the number of whole NV * VW column tiles (1 with TAIL); work-items past M or
// past the last tile (the padding of a group) only reach the barriers.
// Work-groups run in bands of `band` groups along M: each band's groups take every column tile in
// turn, walking down the band for each, so the band's rows of A stay in cache while B streams past
// (the launcher sizes bands to the cache; a band of every group is the plain order).
__kernel void gemm_nn(FOO_GEMM_PARAMS, long n_tiles, long band) {
  const long groups_m = get_num_groups(0), groups_n = get_num_groups(1);
  const long g = get_group_id(0) + groups_m * get_group_id(1);
  const long first = g / (band * groups_n) * band, rows = min(band, groups_m - first), r = g - first * groups_n;
  const long tile = r / rows * get_local_size(1) + get_local_id(1);
  const long m0 = ((first + r % rows) * get_local_size(0) + get_local_id(0)) * TM, batch = get_global_id(2);
  const long n0 = min(tile, n_tiles - 1) * NV * VW;
  FOO_GEMM_OPERANDS;
#if TAIL
#define B_VECTOR(k, j) foo_clamped_lanes(B + (k) * s.b_k, n0 + (j) * VW, s.n, s.b_n)
#elif PACKED
  __global const ct* b_panel = B + n0 * s.k;  // panel n0 / (NV * VW), K * NV * VW elements each
#define B_VECTOR(k, j) VLOAD(b_panel + (k) * (NV * VW) + (j) * VW)
#else
#define B_VECTOR(k, j) VLOAD(B + (k) * s.b_k + n0 + (j) * VW)
#endif
  long row[TM];
#pragma unroll
  for (int i = 0; i < TM; ++i) row[i] = min(m0 + i, s.m - 1) * s.a_m;
  VT acc[TM][NV];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < NV; ++j) acc[i][j] = 0;
  }
  const long kc = KC > 0 ? KC : s.k;
  const bool padding = m0 >= s.m || tile >= n_tiles;
  for (long kb = 0; kb < s.k; kb += kc) {
    const long k_end = padding ? kb : min(kb + kc, s.k);
    for (long k = kb; k < k_end; ++k) {
      VT bv[NV];
#pragma unroll
      for (int j = 0; j < NV; ++j) bv[j] = B_VECTOR(k, j);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const ct av = A[row[i] + k * s.a_k];
#pragma unroll
        for (int j = 0; j < NV; ++j) acc[i][j] = fma((VT)av, bv[j], acc[i][j]);
      }
    }
#if KC > 0
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
  }
  if (padding) return;
  // Rows of C contiguous along N take vector stores of whole vectors (a TAIL's last may be part of
  // one), when D's rows are contiguous too or each one value (a convolution's bias, d_n == 0).
  const bool vector_store = s.c_n == 1 && (beta == 0 || s.d_n == 1 || s.d_n == 0);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    if (m0 + i >= s.m) break;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if (vector_store && (!TAIL || n0 + (j + 1) * VW <= s.n)) {
        const long n = n0 + j * VW;
        __global const ct* d_row = D + (m0 + i) * s.d_m;
        const VT v = beta == 0    ? alpha * acc[i][j]
                     : s.d_n == 0 ? alpha * acc[i][j] + beta * d_row[0]
                                  : alpha * acc[i][j] + beta * VLOAD(d_row + n);
        FOO_CAT(vstore, VW)(v, 0, C + (m0 + i) * s.c_m + n);
        continue;
      }
      const ct* lanes = (const ct*)&acc[i][j];
      for (int l = 0; l < VW && n0 + j * VW + l < s.n; ++l) {
        const long n = n0 + j * VW + l;
        C[(m0 + i) * s.c_m + n * s.c_n] = foo_epilogue(lanes[l], alpha, beta, D, (m0 + i) * s.d_m + n * s.d_n);
      }
    }
  }
}
#endif  // NV

#ifdef TN
#define VT FOO_CAT(FOO_COMPUTE(COMPUTE), VW)
#define VLOAD(p) FOO_CAT(vload, VW)(0, p)

// Rows past M and columns past N (edge tiles, the padding of a group) repeat the last ones and are
// not stored, so every work-item of a group reaches the barriers.
__kernel void gemm_nt(FOO_GEMM_PARAMS) {
  const long m0 = get_global_id(0) * TM, n0 = get_global_id(1) * TN, batch = get_global_id(2);
  FOO_GEMM_OPERANDS;
  long row[TM], col[TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) row[i] = min(m0 + i, s.m - 1) * s.a_m;
#pragma unroll
  for (int j = 0; j < TN; ++j) col[j] = min(n0 + j, s.n - 1) * s.b_n;
  VT acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;
  }
  const long k_vectors = s.k / VW * VW, kc = KC > 0 ? KC : max(k_vectors, 1L);
  for (long kb = 0; kb < k_vectors; kb += kc) {
    const long k_end = min(kb + kc, k_vectors);
    for (long k = kb; k < k_end; k += VW) {
      VT av[TM], bv[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) av[i] = VLOAD(A + row[i] + k);
#pragma unroll
      for (int j = 0; j < TN; ++j) bv[j] = VLOAD(B + col[j] + k);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
    }
#if KC > 0
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    if (m0 + i >= s.m) break;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      if (n0 + j >= s.n) break;
      const ct* lanes = (const ct*)&acc[i][j];
      ct sum = 0;
      for (int l = 0; l < VW; ++l) sum += lanes[l];
      for (long k = k_vectors; k < s.k; ++k) sum += A[row[i] + k] * B[col[j] + k];
      C[(m0 + i) * s.c_m + (n0 + j) * s.c_n] =
          foo_epilogue(sum, alpha, beta, D, (m0 + i) * s.d_m + (n0 + j) * s.d_n);
    }
  }
}
#endif  // TN

#ifdef KW
#define TILE_M (RM * WM)
#define TILE_N (RN * WN)

// Loads walk the tile along the operand's contiguous dim when it has one, so neighbouring
// work-items read neighbouring addresses.
__kernel __attribute__((reqd_work_group_size(RM, RN, 1))) void gemm_local(FOO_GEMM_PARAMS) {
  const int li = get_local_id(0), lj = get_local_id(1), lid = lj * RM + li;
  const long m_tile = get_group_id(0) * TILE_M, n_tile = get_group_id(1) * TILE_N, batch = get_global_id(2);
  FOO_GEMM_OPERANDS;
  __local ct a_tile[KW][TILE_M];
  __local ct b_tile[KW][TILE_N];
  ct acc[WM][WN];
#pragma unroll
  for (int i = 0; i < WM; ++i) {
#pragma unroll
    for (int j = 0; j < WN; ++j) acc[i][j] = 0;
  }
  const bool a_along_k = s.a_k == 1, b_along_k = s.b_k == 1;
  for (long k0 = 0; k0 < s.k; k0 += KW) {
    for (int e = lid; e < KW * TILE_M; e += RM * RN) {
      const int kk = a_along_k ? e % KW : e / TILE_M, mm = a_along_k ? e / KW : e % TILE_M;
      const long m = m_tile + mm, k = k0 + kk;
      a_tile[kk][mm] = m < s.m && k < s.k ? A[m * s.a_m + k * s.a_k] : 0;
    }
    for (int e = lid; e < KW * TILE_N; e += RM * RN) {
      const int kk = b_along_k ? e % KW : e / TILE_N, nn = b_along_k ? e / KW : e % TILE_N;
      const long n = n_tile + nn, k = k0 + kk;
      b_tile[kk][nn] = n < s.n && k < s.k ? B[k * s.b_k + n * s.b_n] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < KW; ++kk) {
      ct av[WM], bv[WN];
#pragma unroll
      for (int i = 0; i < WM; ++i) av[i] = a_tile[kk][li + i * RM];
#pragma unroll
      for (int j = 0; j < WN; ++j) bv[j] = b_tile[kk][lj + j * RN];
#pragma unroll
      for (int i = 0; i < WM; ++i) {
#pragma unroll
        for (int j = 0; j < WN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int i = 0; i < WM; ++i) {
    const long m = m_tile + li + i * RM;
#pragma unroll
    for (int j = 0; j < WN; ++j) {
      const long n = n_tile + lj + j * RN;
      if (m < s.m && n < s.n) C[m * s.c_m + n * s.c_n] = foo_epilogue(acc[i][j], alpha, beta, D, m * s.d_m + n * s.d_n);
    }
  }
}
#endif  // KW
