// index/positions: the positions behind indexing with tensors, take, put_ and index_fill_, and a
// checked copy of scatter's index for its sorted path. out = p, or base * size + p with HAS_BASE
// (a further indexed dim merged into base's positions), where p is `index`'s position (int64,
// contiguous like base and out), counted from the end when negative with WRAP. A position outside
// [-size, size) with WRAP, [0, size) without, reports FOO_ERROR_POSITION and becomes 0, so that
// reads through out stay in bounds, or with SKIP_BAD -1 (as does a position merged into a -1),
// which the kernels that write through out (scatter_gather, fold_sorted) leave out.
// Build options: WRAP, HAS_BASE, SKIP_BAD, INDEX_T.
#include "common.clh"

#ifdef SKIP_BAD
#define FOO_BAD_POSITION -1
#else
#define FOO_BAD_POSITION 0
#endif

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
      q = FOO_BAD_POSITION;
    }
#ifdef HAS_BASE
    const long b = FOO_PTR(const long, base, base_offset)[i];
    q = q < 0 || b < 0 ? -1 : b * size + q;
#endif
    o[i] = q;
  }
}
