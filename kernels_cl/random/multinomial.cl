// random/multinomial: samples with replacement. Sample i of row r draws U[0, 1) (the element
// layout of random/philox.clh) and takes the first category whose cumulative weight exceeds U * total.
// Build options: ACC (float or double: the dtype of the cumulative weights), INDEX_T.
#include "common.clh"
#include "random/philox.clh"

typedef FOO_COMPUTE(ACC) acc_t;

// The first category j with cdf[j] > target; a zero-weight category only when rounding left
// target at the total, and then the last category with weight.
inline ulong foo_draw(__global const acc_t* cdf, ulong categories, acc_t target) {
  ulong lo = 0, hi = categories - 1;
  while (lo < hi) {
    const ulong mid = (lo + hi) / 2;
    if (cdf[mid] > target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  while (lo > 0 && cdf[lo] == cdf[lo - 1]) --lo;
  return lo;
}

__kernel void multinomial_contig(__global char* out, ulong out_offset, __global const char* cdf, ulong cdf_offset,
                                 ulong seed, ulong offset, ulong categories, ulong samples, INDEX_T n) {
  __global long* o = FOO_PTR(long, out, out_offset);
  __global const acc_t* c = FOO_PTR(const acc_t, cdf, cdf_offset);
  const INDEX_T tiles = n / 32 + (n % 32 != 0);  // no overflow near the INDEX_T limit
  FOO_GRID_LOOP(t, tiles) {
    const foo_philox8 r = foo_philox_tile(seed, offset + (ulong)t * 8);
    float u[32];
    foo_uniform_tile(r, u);
    const INDEX_T first = t * 32;
    for (int k = 0; k < 32 && k < n - first; ++k) {
      const ulong row = (first + k) / samples;
      __global const acc_t* row_cdf = c + row * categories;
      o[first + k] = (long)foo_draw(row_cdf, categories, (acc_t)u[k] * row_cdf[categories - 1]);
    }
  }
}
