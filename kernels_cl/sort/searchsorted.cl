// sort/searchsorted: each value's insertion position in its row of sorted boundaries, by CPU's
// binary search: the first position whose boundary is >= the value (> with RIGHT), so NaN goes
// after everything. Contiguous operands: boundaries are rows of `len`, values rows of `per_row`
// (per_row 0: one row of boundaries for every value). Build options: DT, OUT, INDEX_T, RIGHT.
#include "common.clh"

__kernel void searchsorted(__global char* out, ulong out_offset, __global const char* boundaries,
                           ulong boundaries_offset, __global const char* values, ulong values_offset, long len,
                           long per_row, INDEX_T n) {
  __global FOO_STORAGE(OUT)* o = FOO_PTR(FOO_STORAGE(OUT), out, out_offset);
  __global const FOO_STORAGE(DT)* b = FOO_PTR(const FOO_STORAGE(DT), boundaries, boundaries_offset);
  __global const FOO_STORAGE(DT)* v = FOO_PTR(const FOO_STORAGE(DT), values, values_offset);
  FOO_GRID_LOOP(i, n) {
    const FOO_COMPUTE(DT) x = FOO_LOAD(DT, v, i);
    const long row = per_row > 0 ? (long)i / per_row * len : 0;
    long start = 0, end = len;
    while (start < end) {
      const long mid = start + ((end - start) >> 1);
      const FOO_COMPUTE(DT) m = FOO_LOAD(DT, b, row + mid);
#ifdef RIGHT
      const bool before = !(m > x);
#else
      const bool before = !(m >= x);
#endif
      if (before) {
        start = mid + 1;
      } else {
        end = mid;
      }
    }
    FOO_STORE(OUT, o, i, (FOO_STORAGE(OUT))start);
  }
}
