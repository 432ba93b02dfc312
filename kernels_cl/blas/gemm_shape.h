// The operands of a batched GEMM (kernels_cl/blas/gemm.cl and gemm_exact.cl, csrc/launch/Gemm.cpp):
// C = alpha * A @ B + beta * D with M x K, K x N and M x N matrices, each addressed by element
// strides along its two dims and the batch.
#ifndef FOO_CL_GEMM_SHAPE_H
#define FOO_CL_GEMM_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 m, n, k;
  foo_int64 a_m, a_k, a_b;  // A[b][m][k] at a_b * b + a_m * m + a_k * k
  foo_int64 b_k, b_n, b_b;
  foo_int64 c_m, c_n, c_b;
  foo_int64 d_m, d_n, d_b;
} foo_gemm_shape;

#endif  // FOO_CL_GEMM_SHAPE_H
