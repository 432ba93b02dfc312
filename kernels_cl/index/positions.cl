// index/positions: the positions behind indexing with tensors, take, put_ and index_fill_, and a
// checked copy of scatter's index for its sorted path. out = p, or base * size + p with HAS_BASE
// (a further indexed dim merged into base's positions), where p is `index`'s position (int64,
// contiguous like base and out), counted from the end when negative with WRAP. A position outside
// [-size, size) with WRAP, [0, size) without, reports FOO_ERROR_POSITION and counts as 0, so the
// kernels that take out stay in bounds. Build options: WRAP, HAS_BASE, INDEX_T.
#include "common.clh"

__kernel void positions(__global const char* index, ulong index_offset, __global const char* base, ulong base_offset,
                        __global char* out, ulong out_offset, long size, FOO_ERROR_PARAM, INDEX_T n) {
  __global const long* p = FOO_PTR(const long, index, index_offset);
  __global long* o = FOO_PTR(long, out, out_offset);
  FOO_GRID_LOOP(i, n) {
    long q = p[i];
#ifdef WRAP
    if (q < 0) q += size;
#endif
    if (q < 0 || q >= size) {
      FOO_REPORT(FOO_ERROR_POSITION);
      q = 0;
    }
#ifdef HAS_BASE
    q += FOO_PTR(const long, base, base_offset)[i] * size;
#endif
    o[i] = q;
  }
}
