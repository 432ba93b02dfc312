// copy/copy: element copies with dtype conversion, contiguous or strided on both sides, and
// transposes (copy_transposed). Build options: SRC and DST (dtype names of common.clh), INDEX_T,
// NDIM for the strided kernels, and CONJ and NEGATE where the source's conjugate or negative bit
// differs from the destination's.
#ifndef NOPERANDS
#define NOPERANDS 2  // destination and source (flips pass a third, whose strides go unused)
#endif
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

// A run along dim 0 with both strides one element (a transpose's rows), or the destination's minus
// one (a flip's), copies as a contiguous loop, which the compiler vectorises.
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
    } else if (dst_step == -(long)sizeof(dst_t) && src_step == sizeof(src_t)) {  // a flip's rows
      for (INDEX_T k = 0; k < run; ++k) FOO_STORE(DST, d, -(long)k, FOO_COPIED(s, k));
    } else {
      for (INDEX_T k = 0; k < run; ++k) {
        FOO_STORE(DST, FOO_PTR(dst_t, d, k * dst_step), 0, FOO_COPIED(FOO_PTR(const src_t, s, k * src_step), 0));
      }
    }
    foo_walk_skip_run(&layout, &w);
  }
}

// A copy whose destination runs along dim 0 and whose source runs along dim 1 (a transpose: x.t(),
// NCHW <-> NHWC), in tiles of FOO_TILE x FOO_TILE elements of dims 0 and 1, a work-item each, for
// every index of the other dims: a tile's source rows are read along the source and its
// destination rows written along the destination. The strided walk read the source one element
// per cache line (2048 x 2048 floats: 11.6 ms, the CPU 4.7 ms).
#define FOO_TILE 16
__kernel void copy_transposed(__global char* dst, ulong dst_offset, __global const char* src, ulong src_offset,
                              foo_layout layout, INDEX_T units) {
  const long size0 = layout.size[0], size1 = layout.size[1];
  const long tiles0 = (size0 + FOO_TILE - 1) / FOO_TILE, tiles1 = (size1 + FOO_TILE - 1) / FOO_TILE;
  const long dst0 = FOO_STRIDE(&layout, 0, 0), dst1 = FOO_STRIDE(&layout, 0, 1);
  const long src0 = FOO_STRIDE(&layout, 1, 0), src1 = FOO_STRIDE(&layout, 1, 1);
  FOO_GRID_LOOP(unit, units) {
    // The other dims' index: their offsets (dims 2 and up).
    INDEX_T rest = unit / (tiles0 * tiles1);
    long dst_base = 0, src_base = 0;
    for (int d = 2; d < NDIM; ++d) {
      const INDEX_T idx = d + 1 < NDIM ? rest % (INDEX_T)layout.size[d] : rest;
      rest /= (INDEX_T)layout.size[d];
      dst_base += (long)idx * FOO_STRIDE(&layout, 0, d);
      src_base += (long)idx * FOO_STRIDE(&layout, 1, d);
    }
    const long tile = unit % (tiles0 * tiles1);
    const long i0 = tile % tiles0 * FOO_TILE, i1 = tile / tiles0 * FOO_TILE;
    const int n0 = min((long)FOO_TILE, size0 - i0), n1 = min((long)FOO_TILE, size1 - i1);
    value_t t[FOO_TILE][FOO_TILE];
    for (int a = 0; a < n0; ++a) {  // source runs: along dim 1
      __global const src_t* s = FOO_PTR(const src_t, src, src_offset + src_base + (i0 + a) * src0 + i1 * src1);
      for (int b = 0; b < n1; ++b) t[b][a] = FOO_COPIED(s, b);
    }
    for (int b = 0; b < n1; ++b) {  // destination runs: along dim 0
      __global dst_t* d = FOO_PTR(dst_t, dst, dst_offset + dst_base + i0 * dst0 + (i1 + b) * dst1);
      for (int a = 0; a < n0; ++a) FOO_STORE(DST, d, a, t[b][a]);
    }
  }
}
