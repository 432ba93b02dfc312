// index/embedding_backward: the dense gradient of an embedding, [num_weights, dim]. Row w sums the
// gradient rows of the positions whose index is w; the indices come sorted, with `order` their
// original positions, so each row finds its range by binary search (deterministic, no atomics).
// Build options: DT (dtype name), ACC, INDEX_T, SCALE_BY_FREQUENCY.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

// The first position in sorted[0, m) holding a value >= w.
inline ulong foo_lower_bound(__global const long* sorted, ulong m, long w) {
  ulong lo = 0, hi = m;
  while (lo < hi) {
    const ulong mid = (lo + hi) / 2;
    if (sorted[mid] < w) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__kernel void embedding_backward(__global const char* grad, ulong grad_offset, __global const char* sorted,
                                 ulong sorted_offset, __global const char* order, ulong order_offset,
                                 __global char* out, ulong out_offset, ulong m, ulong dim, long padding_idx,
                                 INDEX_T n) {
  __global const st* g = FOO_PTR(const st, grad, grad_offset);
  __global const long* s = FOO_PTR(const long, sorted, sorted_offset);
  __global const long* p = FOO_PTR(const long, order, order_offset);
  __global st* o = FOO_PTR(st, out, out_offset);
  FOO_GRID_LOOP(e, n) {
    const long w = e / dim;
    const ulong d = e % dim;
    acc_t sum = 0;
    if (w != padding_idx) {
      const ulong first = foo_lower_bound(s, m, w), last = foo_lower_bound(s, m, w + 1);
      for (ulong i = first; i < last; ++i) sum += (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, g, p[i] * dim + d));
#ifdef SCALE_BY_FREQUENCY
      if (last > first) sum /= (acc_t)(last - first);
#endif
    }
    FOO_STORE(DT, o, e, sum);
  }
}
