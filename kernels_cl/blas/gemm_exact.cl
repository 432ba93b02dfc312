// blas/gemm_exact: C = alpha * A @ B + beta * D for integer matrices, as the CPU computes them:
// products and sums wrap around in the element type's width. They are taken in 64-bit unsigned
// arithmetic, whose wraparound is defined and agrees with any narrower width's at the store; beta
// == 0 ignores D. A work-item turn per output element: blas/gemm's tiled kernels are float's.
// Build options: COMPUTE (the element type), INDEX_T.
#include "compute.clh"
#include "blas/gemm_shape.h"

__kernel void gemm_exact(__global char* c, ulong c_offset, __global const char* a, ulong a_offset,
                         __global const char* b, ulong b_offset, __global const char* d, ulong d_offset,
                         foo_gemm_shape s, long alpha, long beta, INDEX_T n) {
  FOO_GRID_LOOP(i, n) {
    const long col = i % s.n, row = i / s.n % s.m, batch = i / s.n / s.m;
    __global const ct* A = FOO_PTR(const ct, a, a_offset) + batch * s.a_b + row * s.a_m;
    __global const ct* B = FOO_PTR(const ct, b, b_offset) + batch * s.b_b + col * s.b_n;
    ulong sum = 0;
    for (long k = 0; k < s.k; ++k) sum += (ulong)(long)A[k * s.a_k] * (ulong)(long)B[k * s.b_k];
    ulong result = (ulong)alpha * sum;
    if (beta != 0) {
      result += (ulong)beta * (ulong)(long)FOO_PTR(const ct, d, d_offset)[batch * s.d_b + row * s.d_m + col * s.d_n];
    }
    FOO_PTR(ct, c, c_offset)[batch * s.c_b + row * s.c_m + col * s.c_n] = (ct)(long)result;
  }
}
