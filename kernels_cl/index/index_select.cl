// index/index_select: out [outer, k, inner] = self [outer, size, inner] at the k positions of
// `index` along the middle dim (both contiguous). A position outside [0, size) reports
// FOO_ERROR_INDEX and writes 0. Only moves values, so DT is the unsigned-size dtype of the element
// size. Build options: DT, INDEX (int32 or int64), INDEX_T.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_STORAGE(INDEX) index_t;

__kernel void index_select_contig(__global const char* self, ulong self_offset, __global const char* index,
                                  ulong index_offset, __global char* out, ulong out_offset, ulong size, ulong k,
                                  ulong inner, FOO_ERROR_PARAM, INDEX_T n) {
  __global const st* src = FOO_PTR(const st, self, self_offset);
  __global const index_t* idx = FOO_PTR(const index_t, index, index_offset);
  __global st* dst = FOO_PTR(st, out, out_offset);
  FOO_GRID_LOOP(g, n) {
    const ulong r = g % inner, j = (g / inner) % k, o = g / (inner * k);
    const long i = idx[j];
    if (i < 0 || i >= (long)size) {
      FOO_REPORT(FOO_ERROR_INDEX);
      dst[g] = 0;
      continue;
    }
    dst[g] = src[(o * size + i) * inner + r];
  }
}
