// copy/copy: element copies with dtype conversion, contiguous or strided on both sides.
// Build options: SRC and DST (dtype names of common.clh), INDEX_T, NDIM for copy_strided, and
// CONJ and NEGATE where the source's conjugate or negative bit differs from the destination's.
#define NOPERANDS 2
#include "common.clh"

typedef FOO_STORAGE(SRC) src_t;
typedef FOO_STORAGE(DST) dst_t;
typedef FOO_COMPUTE(DST) value_t;

inline value_t foo_copied(value_t v) {
#ifdef CONJ
  v.y = -v.y;
#endif
#ifdef NEGATE
  v = -v;
#endif
  return v;
}

#define FOO_COPIED(s, i) foo_copied(FOO_CONVERT_FROM(DST, SRC, FOO_LOAD(SRC, s, i)))

__kernel void copy_contig(__global char* dst, ulong dst_offset, __global const char* src, ulong src_offset,
                          INDEX_T n) {
  __global dst_t* d = FOO_PTR(dst_t, dst, dst_offset);
  __global const src_t* s = FOO_PTR(const src_t, src, src_offset);
  FOO_GRID_LOOP(i, n) { FOO_STORE(DST, d, i, FOO_COPIED(s, i)); }
}

// A run along dim 0 with both strides one element (a transpose's rows) copies as a contiguous loop,
// which the compiler vectorises.
__kernel void copy_strided(__global char* dst, ulong dst_offset, __global const char* src, ulong src_offset,
                           foo_layout layout, INDEX_T n) {
  const long dst_step = FOO_STRIDE(&layout, 0, 0), src_step = FOO_STRIDE(&layout, 1, 0);
  foo_walk w;
  for (foo_walk_begin(&layout, n, &w); w.i < w.end; foo_walk_next(&layout, &w)) {
    const INDEX_T run = foo_walk_run(&layout, &w);
    __global dst_t* d = FOO_PTR(dst_t, dst, dst_offset + w.off[0]);
    __global const src_t* s = FOO_PTR(const src_t, src, src_offset + w.off[1]);
    if (dst_step == sizeof(dst_t) && src_step == sizeof(src_t)) {
      for (INDEX_T k = 0; k < run; ++k) FOO_STORE(DST, d, k, FOO_COPIED(s, k));
    } else {
      for (INDEX_T k = 0; k < run; ++k) {
        FOO_STORE(DST, FOO_PTR(dst_t, d, k * dst_step), 0, FOO_COPIED(FOO_PTR(const src_t, s, k * src_step), 0));
      }
    }
    foo_walk_skip_run(&layout, &w);
  }
}
