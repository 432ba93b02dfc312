// index/scatter_gather: gather, scatter, scatter_add and scatter_reduce along one dim, over an
// iterator of three operands of the index's shape: (out, self, index) for gather and (self, src,
// index) for scatter. `self` is a view with stride 0 along the dim; its real stride there,
// dim_stride (bytes), is taken index times; a scalar source comes as its encoding's bits. A position
// outside [0, dim_size) reports FOO_ERROR_POSITION and is skipped (gather writes 0 there). gather
// and scatter only move values (DT: the unsigned-size dtype of the
// element size); COMBINE (sum, prod, amax or amin) folds the source into the target atomically
// in DT's compute type. Build options: DT, INDEX_T, NDIM, SRC_SCALAR, COMBINE.
#define NOPERANDS 3
#include "common.clh"

#ifdef COMBINE
#include "atomics.clh"
#endif

typedef FOO_STORAGE(DT) st;

#ifndef COMBINE
__kernel void gather_strided(__global char* out, ulong out_offset, __global const char* self, ulong self_offset,
                             __global const char* index, ulong index_offset, foo_layout L, long dim_stride,
                             ulong dim_size, FOO_ERROR_PARAM, INDEX_T n) {
  foo_walk w;
  FOO_WALK(&L, n, w) {
    const long k = *FOO_PTR(const long, index, index_offset + FOO_WALK_OFFSET(&L, w, 2));
    __global st* target = FOO_PTR(st, out, out_offset + FOO_WALK_OFFSET(&L, w, 0));
    if ((ulong)k >= dim_size) {
      FOO_REPORT(FOO_ERROR_POSITION);
      *target = 0;
      continue;
    }
    *target = *FOO_PTR(const st, self, self_offset + FOO_WALK_OFFSET(&L, w, 1) + k * dim_stride);
  }
}
#endif

__kernel void scatter_strided(__global char* self, ulong self_offset, __global const char* src, ulong src_offset,
                              __global const char* index, ulong index_offset, foo_layout L, long dim_stride,
                              ulong value_bits, ulong dim_size, FOO_ERROR_PARAM, INDEX_T n) {
  foo_walk w;
  FOO_WALK(&L, n, w) {
    const long k = *FOO_PTR(const long, index, index_offset + FOO_WALK_OFFSET(&L, w, 2));
    if ((ulong)k >= dim_size) {
      FOO_REPORT(FOO_ERROR_POSITION);
      continue;
    }
    __global st* target = FOO_PTR(st, self, self_offset + FOO_WALK_OFFSET(&L, w, 0) + k * dim_stride);
#ifdef SRC_SCALAR
    *target = (st)value_bits;
#elif defined(COMBINE)
    __global const st* from = FOO_PTR(const st, src, src_offset + FOO_WALK_OFFSET(&L, w, 1));
    const FOO_COMPUTE(DT) v = FOO_CONVERT(DT, FOO_LOAD(DT, from, 0));
    FOO_CAT(foo_atomic_, COMBINE)(target, v);
#else
    *target = *FOO_PTR(const st, src, src_offset + FOO_WALK_OFFSET(&L, w, 1));
#endif
  }
}
