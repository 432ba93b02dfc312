// index/fold_sorted: writes runs of values into rows of an [outer, size, inner] tensor, each row
// folding its values in their original order (deterministic, no atomics). `keys` are the rows,
// sorted stably (a negative one, a bad position index/positions reported, is left out), `order`
// the values' original positions; the work-item at the start of a run folds
// it in ACC (float for 16-bit floats: one rounding per row) and then writes out once.
// Build options: DT, ACC (dtype names), FOLD_SUM, FOLD_PROD, FOLD_AMAX, FOLD_AMIN (NaN wins, as in
// CPU's scatter_reduce) or FOLD_LAST (the last value wins), INDEX_T.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

#if defined(FOLD_SUM)
#define FOLD(a, b) ((a) + (b))
#elif defined(FOLD_PROD)
#define FOLD(a, b) ((a) * (b))
#elif defined(FOLD_AMAX)
#define FOLD(a, b) (((b) != (b) || (a) < (b)) ? (b) : (a))
#elif defined(FOLD_AMIN)
#define FOLD(a, b) (((b) != (b) || (b) < (a)) ? (b) : (a))
#endif

__kernel void fold_sorted(__global char* out, ulong out_offset, __global const char* values, ulong values_offset,
                          __global const char* keys, ulong keys_offset, __global const char* order,
                          ulong order_offset, ulong size, ulong m, ulong inner, INDEX_T n) {
  __global st* o = FOO_PTR(st, out, out_offset);
  __global const st* v = FOO_PTR(const st, values, values_offset);
  __global const long* k = FOO_PTR(const long, keys, keys_offset);
  __global const long* p = FOO_PTR(const long, order, order_offset);
  FOO_GRID_LOOP(e, n) {
    const ulong d = e % inner, j = (e / inner) % m, outer = e / inner / m;
    if (k[j] < 0 || (j > 0 && k[j - 1] == k[j])) continue;
    ulong end = j + 1;
    while (end < m && k[end] == k[j]) ++end;
    __global const st* row = v + outer * m * inner + d;
    const ulong target = (outer * size + k[j]) * inner + d;
#ifdef FOLD_LAST
    FOO_STORE(DT, o, target, FOO_LOAD(DT, row, p[end - 1] * inner));
#else
    acc_t acc = (acc_t)FOO_LOAD(DT, row, p[j] * inner);
    for (ulong i = j + 1; i < end; ++i) acc = FOLD(acc, (acc_t)FOO_LOAD(DT, row, p[i] * inner));
    FOO_STORE(DT, o, target, FOO_CONVERT(DT, FOLD((acc_t)FOO_LOAD(DT, o, target), acc)));
#endif
  }
}
