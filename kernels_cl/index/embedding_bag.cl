// index/embedding_bag: nn.EmbeddingBag's forward, one work-item per (bag, feature) as on CUDA. Bag b
// folds the weight rows named by indices[offsets[b], end), end = offsets[b + 1] (for the last bag
// the number of indices, as on CPU and CUDA), skipping padding_idx: MODE_SUM sums them (each times
// its per-sample weight with PER_SAMPLE_WEIGHTS), MODE_MEAN divides the sum by their number (an
// empty bag gives 0), MODE_MAX keeps the largest and writes its row to max_indices (-1 and 0 for an
// empty bag). Feature 0's work-item also writes offset2bag (each position's bag) and bag_size (how
// many rows it folded). An index outside [0, rows) reports FOO_ERROR_INDEX and is left out; offsets
// that do not start at 0, decrease or pass the end of the indices report FOO_ERROR_OFFSETS, and the
// bag is left empty. Build options: DT, ACC (the accumulation
// dtype), IT (the dtype of indices, offsets and the index outputs), MODE_SUM, MODE_MEAN or MODE_MAX,
// PER_SAMPLE_WEIGHTS, INDEX_T.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;
typedef FOO_STORAGE(IT) it;

__kernel void embedding_bag(__global const char* weight, ulong weight_offset, __global const char* indices,
                            ulong indices_offset, __global const char* offsets, ulong offsets_offset,
                            __global const char* per_sample_weights, ulong per_sample_weights_offset,
                            __global char* out, ulong out_offset, __global char* offset2bag, ulong offset2bag_offset,
                            __global char* bag_size, ulong bag_size_offset, __global char* max_indices,
                            ulong max_indices_offset, long weight_stride0, long weight_stride1,
                            long per_sample_weights_stride, ulong n_bags, ulong n_offsets, ulong n_indices, ulong dim,
                            ulong rows, long padding_idx, FOO_ERROR_PARAM, INDEX_T n) {
  __global const st* w = FOO_PTR(const st, weight, weight_offset);
  __global const it* idx = FOO_PTR(const it, indices, indices_offset);
  __global const it* off = FOO_PTR(const it, offsets, offsets_offset);
  __global st* o = FOO_PTR(st, out, out_offset);
  __global it* bag_of = FOO_PTR(it, offset2bag, offset2bag_offset);
  FOO_GRID_LOOP(e, n) {
    const ulong b = e / dim, d = e % dim;
    // The offset after this bag's (n_indices after the last) bounds it as CPU checks offsets.
    const long first = (long)off[b], next = b + 1 < n_offsets ? (long)off[b + 1] : (long)n_indices;
    const bool bad = (b == 0 && first != 0) || first < 0 || first > next || next > (long)n_indices;
    if (bad) FOO_REPORT(FOO_ERROR_OFFSETS);
    const ulong begin = bad ? 0 : (ulong)first, end = bad ? 0 : b + 1 < n_bags ? (ulong)next : n_indices;
    acc_t acc = 0;
    long count = 0;
#ifdef MODE_MAX
    long argmax = -1;
#endif
    for (ulong i = begin; i < end; ++i) {
      const long row = (long)idx[i];
      if (d == 0) bag_of[i] = (it)b;
      if (row < 0 || row >= (long)rows) {
        FOO_REPORT(FOO_ERROR_INDEX);
        continue;
      }
      if (row == padding_idx) continue;
      const acc_t v = FOO_CONVERT(DT, FOO_LOAD(DT, w, row * weight_stride0 + (long)d * weight_stride1));
#if defined(MODE_MAX)
      if (count == 0 || v > acc) {
        acc = v;
        argmax = row;
      }
#elif defined(PER_SAMPLE_WEIGHTS)
      __global const st* psw = FOO_PTR(const st, per_sample_weights, per_sample_weights_offset);
      acc += (acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, psw, (long)i * per_sample_weights_stride)) * v;
#else
      acc += v;
#endif
      ++count;
    }
#ifdef MODE_MEAN
    if (count > 0) acc /= (acc_t)count;
#endif
#ifdef MODE_MAX
    FOO_PTR(it, max_indices, max_indices_offset)[e] = (it)argmax;
#endif
    if (d == 0) FOO_PTR(it, bag_size, bag_size_offset)[b] = (it)count;
    FOO_STORE(DT, o, e, acc);
  }
}
