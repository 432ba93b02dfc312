// factory/range: arange and linspace, whose elements depend on their index alone.
// Build options: OUT (dtype name), ACC (the dtype the values are computed in, as CPU's
// accumulate type: long for arange of integers, double for float64 and linspace of integers,
// float otherwise), INDEX_T.
#define NOPERANDS 1
#include "common.clh"

typedef FOO_STORAGE(OUT) out_t;
typedef FOO_COMPUTE(ACC) acc_t;

__kernel void arange_contig(__global char* out, ulong out_offset, acc_t start, acc_t step, INDEX_T n) {
  __global out_t* o = FOO_PTR(out_t, out, out_offset);
  FOO_GRID_LOOP(i, n) { FOO_STORE(OUT, o, i, FOO_CONVERT(OUT, start + step * (acc_t)i)); }
}

// The second half counts back from `end`, so both ends are exact (as PyTorch's linspace).
__kernel void linspace_contig(__global char* out, ulong out_offset, acc_t start, acc_t end, acc_t step, INDEX_T n) {
  __global out_t* o = FOO_PTR(out_t, out, out_offset);
  const INDEX_T halfway = n / 2;
  FOO_GRID_LOOP(i, n) {
    const acc_t v = i < halfway ? start + step * (acc_t)i : end - step * (acc_t)(n - i - 1);
    FOO_STORE(OUT, o, i, FOO_CONVERT(OUT, v));
  }
}
