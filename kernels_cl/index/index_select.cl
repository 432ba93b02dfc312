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
#ifdef FOO_CPU_DEVICE
  // The work-item's range of FOO_GRID_LOOP, a row's run of it at a time: a copy loop per run,
  // instead of three divisions per element (which made it 10x slower).
  const INDEX_T chunk = FOO_ITEM_SHARE(n);
  INDEX_T g = get_global_id(0) * chunk;
  const INDEX_T end = min(n, g + chunk);
  ulong r = g % inner, row = g / inner;
  for (; g < end; r = 0, ++row) {
    const INDEX_T run = (INDEX_T)min((ulong)(end - g), inner - r);
    const long i = idx[row % k];
    __global st* to = dst + g;
    g += run;
    if (i < 0 || i >= (long)size) {
      FOO_REPORT(FOO_ERROR_INDEX);
      for (INDEX_T e = 0; e < run; ++e) to[e] = 0;
      continue;
    }
    __global const st* from = src + ((row / k) * size + i) * inner + r;
    for (INDEX_T e = 0; e < run; ++e) to[e] = from[e];
  }
#else
  FOO_GRID_LOOP(g, n) {
    const INDEX_T r = g % (INDEX_T)inner, row = g / (INDEX_T)inner;
    const long i = idx[row % (INDEX_T)k];
    if (i < 0 || i >= (long)size) {
      FOO_REPORT(FOO_ERROR_INDEX);
      dst[g] = 0;
      continue;
    }
    dst[g] = src[((row / (INDEX_T)k) * size + i) * inner + r];
  }
#endif
}
