// index/embedding_backward: the dense gradient of an embedding, [num_weights, dim]. Row w sums the
// gradient rows of the positions whose index is w; the indices come sorted, with `order` their
// original positions, so each row finds its range by binary search (deterministic, no atomics). A
// work-item takes `width` elements of a row (the whole row on CPU devices, 8 elsewhere), searches
// once, and sums them eight at a time, each element's terms in the positions' order.
// With BAGS (nn.EmbeddingBag's sum and mean) position i's gradient row is that of its bag,
// offset2bag[i], times its per-sample weight (PER_SAMPLE_WEIGHTS) or divided
// by its bag's size (MODE_MEAN); a position outside every bag (bad offsets, which the forward
// reported) adds nothing. Build options: DT (dtype name), ACC, INDEX_T, SCALE_BY_FREQUENCY;
// BAGS, IT (the dtype of offset2bag and bag_size), PER_SAMPLE_WEIGHTS, MODE_MEAN.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;
typedef FOO_CAT(FOO_COMPUTE(ACC), 8) acc8_t;
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

#define FOO_ACC(p, i) ((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, p, i)))

// Elements at .. at + 7 of g in ACC (the first `count` of them where count < 8, the rest 0).
inline acc8_t foo_row8(__global const st* g, ulong at, int count) {
  if (count == 8) {
    return (acc8_t)(FOO_ACC(g, at), FOO_ACC(g, at + 1), FOO_ACC(g, at + 2), FOO_ACC(g, at + 3),
                               FOO_ACC(g, at + 4), FOO_ACC(g, at + 5), FOO_ACC(g, at + 6), FOO_ACC(g, at + 7));
  }
  acc_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int c = 0; c < count; ++c) v[c] = FOO_ACC(g, at + c);
  return vload8(0, v);
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
                                 ulong width, INDEX_T units) {
  __global const st* g = FOO_PTR(const st, grad, grad_offset);
  __global const long* s = FOO_PTR(const long, sorted, sorted_offset);
  __global const long* p = FOO_PTR(const long, order, order_offset);
  __global st* o = FOO_PTR(st, out, out_offset);
  const ulong blocks = (dim + width - 1) / width;
  FOO_GRID_LOOP(unit, units) {
    const long w = unit / blocks;
    const ulong d_begin = unit % blocks * width, d_end = min(dim, d_begin + width);
    ulong first = 0, last = 0;
    if (w != padding_idx) {
      first = foo_lower_bound(s, m, w);
      last = foo_lower_bound(s, m, w + 1);
    }
    for (ulong d = d_begin; d < d_end; d += 8) {
      const int count = min((ulong)8, d_end - d);
      acc8_t sum = 0;
      for (ulong i = first; i < last; ++i) {
#ifdef BAGS
        const long bag = (long)FOO_PTR(const it, offset2bag, offset2bag_offset)[p[i]];
        if ((ulong)bag >= n_bags) continue;  // a position of no bag: its offsets were reported bad
        acc8_t v = foo_row8(g, bag * dim + d, count);
#ifdef PER_SAMPLE_WEIGHTS
        __global const st* psw = FOO_PTR(const st, per_sample_weights, per_sample_weights_offset);
        v *= FOO_ACC(psw, p[i] * per_sample_weights_stride);
#endif
#ifdef MODE_MEAN
        v /= (acc_t)FOO_PTR(const it, bag_size, bag_size_offset)[bag];
#endif
        sum += v;
#else
        sum += foo_row8(g, p[i] * dim + d, count);
#endif
      }
#ifdef SCALE_BY_FREQUENCY
      if (last > first) sum /= (acc_t)(last - first);
#endif
      for (int c = 0; c < count; ++c) FOO_STORE(DT, o, w * dim + d + c, ((acc_t*)&sum)[c]);
    }
  }
}
