// random/randperm: a uniform random permutation of 0 .. n-1 by Rao and Sandelius' method: each
// element goes to one of 2^BUCKET_BITS buckets at random, the buckets are laid out one after
// another (elements in index order within each), and each bucket is shuffled by Fisher-Yates.
//
// Work-item g of `groups` deals elements [g * chunk, (g + 1) * chunk): randperm_count counts them
// per bucket into counts [buckets, groups]; the exclusive prefix sum of counts (taken between the
// launches) gives each (bucket, group) its first slot; randperm_scatter deals again and writes each
// element to its slot; randperm_shuffle shuffles one bucket per work-item.
//
// Random words (philox.clh): 2n words from `offset`, in the tile layout. Element i's bucket is the
// top bits of word i; the bucket starting at slot t takes its shuffle's step s from word n + t + s
// (buckets own disjoint slots, so disjoint words). The permutation depends on (seed, offset, n)
// alone, not on the number of work-items. Build options: BUCKET_BITS.
#include "common.clh"
#include "random/philox.clh"

#define FOO_BUCKETS (1 << BUCKET_BITS)

// The 32 words of the tile of blocks first .. first + 7, in element order (philox.clh).
inline void foo_tile_words(ulong seed, ulong first, uint* words) {
  const foo_philox8 r = foo_philox_tile(seed, first);
  vstore8(r.x, 0, words);
  vstore8(r.y, 1, words);
  vstore8(r.z, 2, words);
  vstore8(r.w, 3, words);
}

// Calls BODY(i, bucket) for each element of work-item g's chunk, in index order.
#define FOO_DEAL(BODY)                                                                   \
  do {                                                                                   \
    const ulong end_ = min(n, ((ulong)get_global_id(0) + 1) * chunk);                    \
    uint words_[32];                                                                     \
    for (ulong i = (ulong)get_global_id(0) * chunk; i < end_; ++i) {                     \
      if (i % 32 == 0 || i == (ulong)get_global_id(0) * chunk) {                         \
        foo_tile_words(seed, offset + 8 * (i / 32), words_);                             \
      }                                                                                  \
      const uint bucket = words_[i % 32] >> (32 - BUCKET_BITS);                          \
      BODY(i, bucket);                                                                   \
    }                                                                                    \
  } while (0)

__kernel void randperm_count(__global char* counts_buffer, ulong counts_offset, ulong n, ulong chunk, ulong seed,
                             ulong offset) {
  __global long* counts = FOO_PTR(long, counts_buffer, counts_offset);
  const ulong groups = get_global_size(0), g = get_global_id(0);
  uint count[FOO_BUCKETS];
  for (int b = 0; b < FOO_BUCKETS; ++b) count[b] = 0;
#define FOO_COUNT(i, bucket) ++count[bucket]
  FOO_DEAL(FOO_COUNT);
#undef FOO_COUNT
  for (int b = 0; b < FOO_BUCKETS; ++b) counts[b * groups + g] = count[b];
}

// slots: the exclusive prefix sum of counts.
__kernel void randperm_scatter(__global char* out_buffer, ulong out_offset, __global const char* slots_buffer,
                               ulong slots_offset, ulong n, ulong chunk, ulong seed, ulong offset) {
  __global long* out = FOO_PTR(long, out_buffer, out_offset);
  __global const long* slots = FOO_PTR(const long, slots_buffer, slots_offset);
  const ulong groups = get_global_size(0), g = get_global_id(0);
  ulong next[FOO_BUCKETS];
  for (int b = 0; b < FOO_BUCKETS; ++b) next[b] = slots[b * groups + g];
#define FOO_PLACE(i, bucket) out[next[bucket]++] = (long)(i)
  FOO_DEAL(FOO_PLACE);
#undef FOO_PLACE
}

// One work-item per bucket; `groups` is the scatter's.
__kernel void randperm_shuffle(__global char* out_buffer, ulong out_offset, __global const char* slots_buffer,
                               ulong slots_offset, ulong n, ulong groups, ulong seed, ulong offset) {
  __global long* out = FOO_PTR(long, out_buffer, out_offset);
  __global const long* slots = FOO_PTR(const long, slots_buffer, slots_offset);
  const ulong b = get_global_id(0);
  if (b >= FOO_BUCKETS) return;
  const ulong start = slots[b * groups], end = b + 1 < FOO_BUCKETS ? slots[(b + 1) * groups] : n;
  __global long* bucket = out + start;
  uint words[32];
  // Step s picks, among the first length - s elements, the one that goes to position length - s - 1.
  for (ulong s = 0; s + 1 < end - start; ++s) {
    const ulong word = n + start + s;
    if (s == 0 || word % 32 == 0) foo_tile_words(seed, offset + 8 * (word / 32), words);
    const ulong remaining = end - start - s;
    // A uniform index below `remaining` (< 2^32: a bucket holds about n / 256 elements): the high
    // half of word * remaining (Lemire's method without rejection, bias below remaining / 2^32).
    const ulong pick = ((ulong)words[word % 32] * remaining) >> 32;
    const long moved = bucket[pick];
    bucket[pick] = bucket[remaining - 1];
    bucket[remaining - 1] = moved;
  }
}
