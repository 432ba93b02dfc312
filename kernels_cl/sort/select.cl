// sort/select: the first m keys of each row in sort/order.clh's order (topk's k largest or
// smallest, in order), each segment of a row scanned by one work-item that keeps its m first
// sorted in the output as it goes: a comparison with the m-th per key, and a shift of the ones
// after it per key that enters (few, past the first m, unless the row comes sorted the wrong way).
// For small m on CPU devices, where the bitonic network's barriers cost most (launch/Sort.cpp).
//
// A row of n keys is `chunks` segments of up to `chunk` keys; segment s of row r writes its first m
// (padding, position -1, past a segment shorter than m) at [(r * chunks + s) * m, ... + m). Without
// IN_POSITIONS a key's position is its index in the row; with it each key comes with its position,
// -1 for padding: a second pass over the candidates of a row's segments.
// Build options: sort/order.clh's, INDEX_T (for the segments), IN_POSITIONS.
#include "sort/order.clh"

__kernel void select_first(__global const char* keys, ulong keys_offset, __global const char* key_positions,
                           ulong key_positions_offset, __global char* values, ulong values_offset,
                           __global char* positions, ulong positions_offset, ulong n, ulong chunk, ulong chunks,
                           ulong m, INDEX_T segments) {
  __global const key_storage_t* in = FOO_PTR(const key_storage_t, keys, keys_offset);
  __global const long* in_pos = FOO_PTR(const long, key_positions, key_positions_offset);
  FOO_GRID_LOOP(g, segments) {
    const ulong row = g / chunks, begin = (g % chunks) * chunk, end = min(n, begin + chunk);
    __global key_storage_t* v = FOO_PTR(key_storage_t, values, values_offset) + g * m;
    __global long* p = FOO_PTR(long, positions, positions_offset) + g * m;
    ulong count = 0;
    kt last_key = 0;  // the m-th kept, once there are m
    long last_pos = -1;
    for (ulong i = begin; i < end; ++i) {
      const kt key = FOO_CONVERT(KEY, FOO_LOAD(KEY, in, row * n + i));
#ifdef IN_POSITIONS
      const long pos = in_pos[row * n + i];
      if (pos < 0) continue;
#else
      const long pos = (long)i;
#endif
      if (count == m && !foo_before(key, pos, last_key, last_pos)) continue;
      ulong j = count < m ? count++ : m - 1;  // the m-th, if full, drops out
      for (; j > 0; --j) {
        const kt previous = FOO_CONVERT(KEY, FOO_LOAD(KEY, v, j - 1));  // (exact: a key's own dtype)
        if (!foo_before(key, pos, previous, p[j - 1])) break;
        FOO_STORE(KEY, v, j, previous);
        p[j] = p[j - 1];
      }
      FOO_STORE(KEY, v, j, key);
      p[j] = pos;
      if (count == m) {
        last_key = FOO_CONVERT(KEY, FOO_LOAD(KEY, v, m - 1));
        last_pos = p[m - 1];
      }
    }
    for (ulong j = count; j < m; ++j) {
      FOO_STORE(KEY, v, j, (kt)0);
      p[j] = -1;
    }
  }
}
