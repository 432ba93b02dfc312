// index/compact: the selected elements of a contiguous tensor, in order. `positions` is the
// inclusive running count of selected elements (int64), so selected element i goes to slot
// positions[i] - 1. masked_select_contig copies values (DT: the unsigned-size dtype of the element
// size); nonzero_contig writes each selected element's coordinates (NDIM of them, sizes given).
// Build options: DT, INDEX_T, NDIM.
#include "common.clh"

typedef FOO_STORAGE(DT) st;

__kernel void masked_select_contig(__global const char* values, ulong values_offset, __global const char* selected,
                                   ulong selected_offset, __global const char* positions, ulong positions_offset,
                                   __global char* out, ulong out_offset, INDEX_T n) {
  __global const st* v = FOO_PTR(const st, values, values_offset);
  __global const uchar* s = FOO_PTR(const uchar, selected, selected_offset);
  __global const long* p = FOO_PTR(const long, positions, positions_offset);
  __global st* o = FOO_PTR(st, out, out_offset);
  FOO_GRID_LOOP(i, n) {
    if (s[i]) o[p[i] - 1] = v[i];
  }
}

typedef struct {
  long size[FOO_MAX_DIMS];
} foo_sizes;

__kernel void nonzero_contig(__global const char* selected, ulong selected_offset, __global const char* positions,
                             ulong positions_offset, __global char* out, ulong out_offset, foo_sizes sizes,
                             INDEX_T n) {
  __global const uchar* s = FOO_PTR(const uchar, selected, selected_offset);
  __global const long* p = FOO_PTR(const long, positions, positions_offset);
  __global long* o = FOO_PTR(long, out, out_offset);
  FOO_GRID_LOOP(i, n) {
    if (!s[i]) continue;
    __global long* coords = o + (p[i] - 1) * NDIM;
    ulong rest = i;
    for (int d = NDIM - 1; d >= 0; --d) {
      coords[d] = rest % sizes.size[d];
      rest /= sizes.size[d];
    }
  }
}
