// index/embedding_backward: the dense gradient of an embedding, [num_weights, dim]. Row w sums the
// gradient rows of the positions whose index is w; the indices come sorted, with `order` their
// original positions, so each row finds its range by binary search (deterministic, no atomics).
// With BAGS (nn.EmbeddingBag's sum and mean) position i's gradient row is that of its bag,
// offset2bag[i], times its per-sample weight (PER_SAMPLE_WEIGHTS) or divided
// by its bag's size (MODE_MEAN); a position outside every bag (bad offsets, which the forward
// reported) adds nothing. Build options: DT (dtype name), ACC, INDEX_T, SCALE_BY_FREQUENCY;
// BAGS, IT (the dtype of offset2bag and bag_size), PER_SAMPLE_WEIGHTS, MODE_MEAN.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;
#ifdef BAGS
typedef FOO_STORAGE(IT) it;
#endif

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
#ifdef BAGS
                                 __global const char* offset2bag, ulong offset2bag_offset,
                                 __global const char* bag_size, ulong bag_size_offset,
                                 __global const char* per_sample_weights, ulong per_sample_weights_offset,
                                 long per_sample_weights_stride, ulong n_bags,
#endif
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
      for (ulong i = first; i < last; ++i) {
#ifdef BAGS
        const long bag = (long)FOO_PTR(const it, offset2bag, offset2bag_offset)[p[i]];
        if ((ulong)bag >= n_bags) continue;  // a position of no bag: its offsets were reported bad
        acc_t v = FOO_CONVERT(DT, FOO_LOAD(DT, g, bag * dim + d));
#ifdef PER_SAMPLE_WEIGHTS
        __global const st* psw = FOO_PTR(const st, per_sample_weights, per_sample_weights_offset);
        v *= (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, psw, p[i] * per_sample_weights_stride));
#endif
#ifdef MODE_MEAN
        v /= (acc_t)FOO_PTR(const it, bag_size, bag_size_offset)[bag];
#endif
        sum += v;
#else
        sum += (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, g, p[i] * dim + d));
#endif
      }
#ifdef SCALE_BY_FREQUENCY
      if (last > first) sum /= (acc_t)(last - first);
#endif
    }
    FOO_STORE(DT, o, e, sum);
  }
}
