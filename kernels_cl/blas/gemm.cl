// blas/gemm: C = alpha * A @ B + beta * D for a batch of strided matrices (strides in elements, so
// transposes and broadcast batches need no copies); beta == 0 ignores D (even its NaNs).
// gemm_nn: B's rows are contiguous; a work-item computes a TM x (NV * VW) tile, broadcasting A's
// elements against VW-wide vectors of B (columns past N's last multiple of NV * VW go element by
// element). gemm_nt: rows of A and columns of B are contiguous along K; a work-item computes
// TM x TN dot products on VW-wide vectors along K.
// Build options: COMPUTE (float or double: every matrix is of that dtype), TM, TN, NV, VW.
#include "compute.clh"
#include "blas/gemm_shape.h"

#define VT FOO_CAT(FOO_COMPUTE(COMPUTE), VW)
#define VLOAD(p) FOO_CAT(vload, VW)(0, p)


inline ct foo_epilogue(ct acc, ct alpha, ct beta, __global const ct* D, long d_index) {
  return beta == 0 ? alpha * acc : alpha * acc + beta * D[d_index];
}

// Any tile at the edge of C, one element at a time.
inline void foo_gemm_edge(__global ct* C, __global const ct* A, __global const ct* B, __global const ct* D,
                          const foo_gemm_shape* s, long m0, long n0, long tm, long tn, ct alpha, ct beta) {
  for (long i = m0; i < min(m0 + tm, s->m); ++i) {
    for (long j = n0; j < min(n0 + tn, s->n); ++j) {
      ct acc = 0;
      for (long k = 0; k < s->k; ++k) acc += A[i * s->a_m + k * s->a_k] * B[k * s->b_k + j * s->b_n];
      C[i * s->c_m + j * s->c_n] = foo_epilogue(acc, alpha, beta, D, i * s->d_m + j * s->d_n);
    }
  }
}

__kernel void gemm_nn(__global char* c, ulong c_offset, __global const char* a, ulong a_offset,
                      __global const char* b, ulong b_offset, __global const char* d, ulong d_offset,
                      foo_gemm_shape s, ct alpha, ct beta) {
  const long m0 = get_global_id(0) * TM, n0 = get_global_id(1) * NV * VW, batch = get_global_id(2);
  if (m0 >= s.m || n0 >= s.n) return;
  __global ct* C = FOO_PTR(ct, c, c_offset) + batch * s.c_b;
  __global const ct* A = FOO_PTR(const ct, a, a_offset) + batch * s.a_b;
  __global const ct* B = FOO_PTR(const ct, b, b_offset) + batch * s.b_b;
  __global const ct* D = FOO_PTR(const ct, d, d_offset) + batch * s.d_b;
  if (n0 + NV * VW > s.n) {
    foo_gemm_edge(C, A, B, D, &s, m0, n0, TM, NV * VW, alpha, beta);
    return;
  }
  // Rows past M (the last tile of a column) repeat row M - 1 and are not stored: the vector loop
  // serves them too.
  long row[TM];
#pragma unroll
  for (int i = 0; i < TM; ++i) row[i] = min(m0 + i, s.m - 1) * s.a_m;
  VT acc[TM][NV];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < NV; ++j) acc[i][j] = 0;
  }
  for (long k = 0; k < s.k; ++k) {
    VT bv[NV];
#pragma unroll
    for (int j = 0; j < NV; ++j) bv[j] = VLOAD(B + k * s.b_k + n0 + j * VW);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const ct av = A[row[i] + k * s.a_k];
#pragma unroll
      for (int j = 0; j < NV; ++j) acc[i][j] = fma((VT)av, bv[j], acc[i][j]);
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    if (m0 + i >= s.m) break;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const ct* lanes = (const ct*)&acc[i][j];
      for (int l = 0; l < VW; ++l) {
        const long n = n0 + j * VW + l;
        C[(m0 + i) * s.c_m + n * s.c_n] = foo_epilogue(lanes[l], alpha, beta, D, (m0 + i) * s.d_m + n * s.d_n);
      }
    }
  }
}

__kernel void gemm_nt(__global char* c, ulong c_offset, __global const char* a, ulong a_offset,
                      __global const char* b, ulong b_offset, __global const char* d, ulong d_offset,
                      foo_gemm_shape s, ct alpha, ct beta) {
  const long m0 = get_global_id(0) * TM, n0 = get_global_id(1) * TN, batch = get_global_id(2);
  if (m0 >= s.m || n0 >= s.n) return;
  __global ct* C = FOO_PTR(ct, c, c_offset) + batch * s.c_b;
  __global const ct* A = FOO_PTR(const ct, a, a_offset) + batch * s.a_b;
  __global const ct* B = FOO_PTR(const ct, b, b_offset) + batch * s.b_b;
  __global const ct* D = FOO_PTR(const ct, d, d_offset) + batch * s.d_b;
  if (m0 + TM > s.m || n0 + TN > s.n) {
    foo_gemm_edge(C, A, B, D, &s, m0, n0, TM, TN, alpha, beta);
    return;
  }
  VT acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;
  }
  long k = 0;
  for (; k + VW <= s.k; k += VW) {
    VT av[TM], bv[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) av[i] = VLOAD(A + (m0 + i) * s.a_m + k);
#pragma unroll
    for (int j = 0; j < TN; ++j) bv[j] = VLOAD(B + (n0 + j) * s.b_n + k);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const ct* lanes = (const ct*)&acc[i][j];
      ct sum = 0;
      for (int l = 0; l < VW; ++l) sum += lanes[l];
      for (long kk = k; kk < s.k; ++kk) sum += A[(m0 + i) * s.a_m + kk] * B[(n0 + j) * s.b_n + kk];
      C[(m0 + i) * s.c_m + (n0 + j) * s.c_n] =
          foo_epilogue(sum, alpha, beta, D, (m0 + i) * s.d_m + (n0 + j) * s.d_n);
    }
  }
}
