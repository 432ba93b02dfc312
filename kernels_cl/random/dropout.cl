// random/dropout: keeps each element with probability p1m (the draw random/bernoulli makes) and
// scales kept ones by `scale`, writing the output and the bool mask. out = x * (keep ? scale : 0),
// as CPU's x * mask * scale, so a dropped NaN or inf stays NaN.
#include "common.clh"
#include "random/philox.clh"

typedef FOO_STORAGE(OUT) out_t;
typedef FOO_COMPUTE(OUT) ct;

__kernel void dropout_contig(__global char* out, ulong out_offset, __global char* mask, ulong mask_offset,
                             __global const char* in, ulong in_offset, ulong seed, ulong offset, float p1m, ct scale,
                             INDEX_T n) {
  __global out_t* o = FOO_PTR(out_t, out, out_offset);
  __global uchar* m = FOO_PTR(uchar, mask, mask_offset);
  __global const out_t* x = FOO_PTR(const out_t, in, in_offset);
  const INDEX_T tiles = n / 32 + (n % 32 != 0);  // no overflow near the INDEX_T limit
  FOO_GRID_LOOP(t, tiles) {
    float u[32];
    foo_dropout_draws(seed, offset, t, u);
    const INDEX_T first = t * 32;
    for (int k = 0; k < 32 && k < n - first; ++k) {
      const bool kept = u[k] < p1m;
      FOO_STORE(OUT, o, first + k, FOO_CONVERT(OUT, FOO_LOAD(OUT, x, first + k) * (kept ? scale : (ct)0)));
      m[first + k] = kept;
    }
  }
}
