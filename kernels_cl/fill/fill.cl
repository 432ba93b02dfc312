// fill/fill: writes one value into every element. The host passes the value's bits, so DST is an
// unsigned-size dtype name (uint8, int16, int32, int64) and one program serves every dtype of that size.
// Build options: DST, INDEX_T, and NDIM for fill_strided.
#define NOPERANDS 1
#include "common.clh"

typedef FOO_STORAGE(DST) dst_t;

__kernel void fill_contig(__global char* dst, ulong dst_offset, dst_t value, INDEX_T n) {
  __global dst_t* d = FOO_PTR(dst_t, dst, dst_offset);
  FOO_GRID_LOOP(i, n) { d[i] = value; }
}

__kernel void fill_strided(__global char* dst, ulong dst_offset, foo_layout layout, dst_t value, INDEX_T n) {
  foo_walk w;
  FOO_WALK(&layout, n, w) {
    *FOO_PTR(dst_t, dst, dst_offset + FOO_WALK_OFFSET(&layout, w, 0)) = value;
  }
}
