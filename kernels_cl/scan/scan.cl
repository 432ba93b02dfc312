// scan/scan: inclusive scans along one dim of contiguous tensors viewed as [outer, D, inner]:
// CUMSUM, CUMPROD, LOGCUMSUMEXP, and CUMMAX/CUMMIN with int64 indices (ties and NaNs move the index
// forward, as CPU PyTorch). A work-item walks one row in order. Build options: IN0, OUT, COMPUTE and
// the scan.
#include "compute.clh"

#ifdef LOGCUMSUMEXP
// log(exp(x) + exp(y)) as CPU's _log_add_exp_helper (std::min/std::max keep x when x is NaN).
inline ct foo_log_add_exp(ct x, ct y) {
  const ct low = isnan(y) ? y : (y < x ? y : x);
  const ct high = isnan(y) ? y : (x < y ? y : x);
  if (low != high || isfinite(low)) return log1p(exp(low - high)) + high;
  return x;  // equal infinities
}
#endif

typedef FOO_STORAGE(IN0) in_t;
typedef FOO_STORAGE(OUT) out_t;

__kernel void scan_contig(__global char* out, ulong out_offset, __global char* indices, ulong indices_offset,
                          __global const char* in, ulong in_offset, ulong outer, ulong D, ulong inner) {
  __global const in_t* x = FOO_PTR(const in_t, in, in_offset);
  __global out_t* y = FOO_PTR(out_t, out, out_offset);
  __global long* where = FOO_PTR(long, indices, indices_offset);
  for (ulong row = get_global_id(0); row < outer * inner; row += get_global_size(0)) {
    const ulong base = (row / inner) * D * inner + row % inner;
    ct acc = 0;
    long at = 0;
    for (ulong d = 0; d < D; ++d) {
      const ulong i = base + d * inner;
      const ct v = FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, i));
#if defined(CUMSUM)
      acc = d == 0 ? v : acc + v;
#elif defined(CUMPROD)
      acc = d == 0 ? v : acc * v;
#elif defined(LOGCUMSUMEXP)
      acc = d == 0 ? v : foo_log_add_exp(acc, v);
#else
#ifdef CUMMIN
      const bool better = v <= acc;
#else
      const bool better = v >= acc;
#endif
      if (d == 0 || FOO_IS_NAN(v) || better) {
        acc = v;
        at = (long)d;
      }
      where[i] = at;
#endif
      FOO_STORE(OUT, y, i, FOO_CONVERT(OUT, acc));
    }
  }
}
