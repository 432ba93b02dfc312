// sort/bitonic: sorts every row of a [rows, n] tensor (keys and their original positions) with a
// bitonic network over rows padded to P = 2^m elements. Stages whose partners lie within a chunk
// of CHUNK elements run in local memory, one work-group of CHUNK / 2 items per chunk; wider stages
// run one launch each. NaN sorts above every number; equal keys keep their original order (the
// position breaks ties), so results match a stable sort. Padding sorts last in either direction.
// Build options: sort/order.clh's, INDEX_T (for rows * P), CHUNK.
#include "sort/order.clh"

__kernel void sort_init(__global const char* keys, ulong keys_offset, __global char* work_keys, ulong work_keys_offset,
                        __global char* work_pos, ulong work_pos_offset, ulong n, ulong padded, INDEX_T total) {
  __global const key_storage_t* in = FOO_PTR(const key_storage_t, keys, keys_offset);
  __global kt* wk = FOO_PTR(kt, work_keys, work_keys_offset);
  __global long* wp = FOO_PTR(long, work_pos, work_pos_offset);
  FOO_GRID_LOOP(g, total) {
    const ulong row = g / padded, col = g % padded;
    wk[g] = col < n ? FOO_CONVERT(KEY, FOO_LOAD(KEY, in, row * n + col)) : (kt)0;
    wp[g] = col < n ? (long)col : -1;
  }
}

// Orders the pair (i, i + j) of a row for stage k: ascending where bit k of i is clear.
inline void foo_order_pair(__global kt* wk, __global long* wp, ulong base, ulong i, ulong j, ulong k) {
  const kt ka = wk[base + i], kb = wk[base + i + j];
  const long ia = wp[base + i], ib = wp[base + i + j];
  const bool up = (i & k) == 0;
  if (up ? foo_before(kb, ib, ka, ia) : foo_before(ka, ia, kb, ib)) {
    wk[base + i] = kb;
    wk[base + i + j] = ka;
    wp[base + i] = ib;
    wp[base + i + j] = ia;
  }
}

// One stage (k, j) with j >= CHUNK: work-item g orders one pair.
__kernel void sort_global(__global char* work_keys, ulong work_keys_offset, __global char* work_pos,
                          ulong work_pos_offset, ulong padded, ulong k, ulong j, ulong pairs) {
  __global kt* wk = FOO_PTR(kt, work_keys, work_keys_offset);
  __global long* wp = FOO_PTR(long, work_pos, work_pos_offset);
  const ulong pairs_per_row = padded / 2;
  FOO_GRID_LOOP(g, pairs) {
    const ulong row = g / pairs_per_row, p = g % pairs_per_row;
    const ulong i = 2 * j * (p / j) + p % j;
    foo_order_pair(wk, wp, row * padded, i, j, k);
  }
}

// Stages k = k_first .. k_last (doubling), each with every j < min(k, CHUNK), on one chunk of
// CHUNK elements per work-group, in local memory.
__kernel void sort_local(__global char* work_keys, ulong work_keys_offset, __global char* work_pos,
                         ulong work_pos_offset, ulong padded, ulong k_first, ulong k_last) {
  __global kt* wk = FOO_PTR(kt, work_keys, work_keys_offset);
  __global long* wp = FOO_PTR(long, work_pos, work_pos_offset);
  __local kt lk[CHUNK];
  __local long lp[CHUNK];
  const ulong chunks_per_row = padded / CHUNK;
  const ulong row = get_group_id(0) / chunks_per_row;
  const ulong start = (get_group_id(0) % chunks_per_row) * CHUNK;  // within the row
  const ulong base = row * padded + start;
  const uint t = get_local_id(0);
  lk[t] = wk[base + t];
  lk[t + CHUNK / 2] = wk[base + t + CHUNK / 2];
  lp[t] = wp[base + t];
  lp[t + CHUNK / 2] = wp[base + t + CHUNK / 2];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong k = k_first; k <= k_last; k <<= 1) {
    for (uint j = (uint)min(k / 2, (ulong)CHUNK / 2); j > 0; j >>= 1) {
      const uint i = 2 * j * (t / j) + t % j;
      const kt ka = lk[i], kb = lk[i + j];
      const long ia = lp[i], ib = lp[i + j];
      const bool up = ((start + i) & k) == 0;
      if (up ? foo_before(kb, ib, ka, ia) : foo_before(ka, ia, kb, ib)) {
        lk[i] = kb;
        lk[i + j] = ka;
        lp[i] = ib;
        lp[i + j] = ia;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  wk[base + t] = lk[t];
  wk[base + t + CHUNK / 2] = lk[t + CHUNK / 2];
  wp[base + t] = lp[t];
  wp[base + t + CHUNK / 2] = lp[t + CHUNK / 2];
}

// The first m sorted elements of each row: values in KEY, positions as int64.
__kernel void sort_finish(__global const char* work_keys, ulong work_keys_offset, __global const char* work_pos,
                          ulong work_pos_offset, __global char* values, ulong values_offset, __global char* positions,
                          ulong positions_offset, ulong padded, ulong m, ulong total) {
  __global const kt* wk = FOO_PTR(const kt, work_keys, work_keys_offset);
  __global const long* wp = FOO_PTR(const long, work_pos, work_pos_offset);
  __global key_storage_t* v = FOO_PTR(key_storage_t, values, values_offset);
  __global long* p = FOO_PTR(long, positions, positions_offset);
  FOO_GRID_LOOP(g, total) {
    const ulong row = g / m, col = g % m;
    FOO_STORE(KEY, v, g, wk[row * padded + col]);
    p[g] = wp[row * padded + col];
  }
}
