// scan/scan: inclusive scans along one dim of contiguous tensors viewed as [outer, D, inner]:
// CUMSUM, CUMPROD, LOGCUMSUMEXP, and CUMMAX/CUMMIN with int64 indices (ties and NaNs move the index
// forward, as CPU PyTorch). A work-item walks one slice of a row in order: the whole row, or for
// few long rows (the sums, products and log-sum-exps, whose partial results combine) one of
// `slices` chunks, starting from the combined totals of the chunks before it, which scan_totals
// wrote to `partial`. Build options: IN0, OUT, COMPUTE and the scan.
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

#if defined(COMPUTE_IS_FLOAT) || defined(COMPUTE_IS_COMPLEX)
#define FOO_SCAN_FINITE(x) isfinite(x)
#else
#define FOO_SCAN_FINITE(x) 1  // integer sums are exact (compensation 0)
#endif

typedef FOO_STORAGE(IN0) in_t;
typedef FOO_STORAGE(OUT) out_t;

// foo_scan_t: what a run of elements combines to; FOO_SCAN_FOLD(acc, total) folds a slice's total
// into what came before it.
#ifdef CUMSUM
// NOTE: a slice is summed in blocks of FOO_SCAN_BLOCK elements (a build option), each from 0, on
// top of the sum of what came before (carry, with Kahan's compensation; none past infinities), so
// that rounding errors grow with a block's length, not the row's: a float running sum over 4M
// elements was 1.7e-5 off (CPU sums in double).
typedef struct {
  ct carry;
  ct compensation;
} foo_scan_t;
#define FOO_SCAN_INIT ((foo_scan_t){0, 0})
inline foo_scan_t foo_scan_add(foo_scan_t a, ct block) {
  const ct y = block - a.compensation, sum = a.carry + y;
  a.compensation = FOO_SCAN_FINITE(sum) ? (sum - a.carry) - y : 0;
  a.carry = sum;
  return a;
}
#define FOO_SCAN_FOLD(acc, total) foo_scan_add(acc, (total).carry - (total).compensation)
#else
typedef ct foo_scan_t;
#if defined(CUMPROD)
#define FOO_SCAN_INIT 1
#define FOO_SCAN_COMBINE(a, v) ((a) * (v))
#elif defined(LOGCUMSUMEXP)
#define FOO_SCAN_INIT (-INFINITY)
#define FOO_SCAN_COMBINE(a, v) foo_log_add_exp(a, v)
#else
#define FOO_SCAN_INIT 0  // the running extrema start at their row's first element
#endif
#ifdef FOO_SCAN_COMBINE
#define FOO_SCAN_FOLD(acc, total) FOO_SCAN_COMBINE(acc, total)
#else
#define FOO_SCAN_FOLD(acc, total) (acc)  // the running extrema take whole rows
#endif
#endif

// Scans elements [begin, end) of the row at `base` on top of `acc` (what the elements before begin
// combine to) and returns what they all combine to; writes each result only when `write`
// (scan_contig; scan_totals wants the total).
inline foo_scan_t foo_scan_range(__global out_t* y, __global long* where, __global const in_t* x, ulong base,
                                 ulong inner, ulong begin, ulong end, foo_scan_t acc, bool write) {
#ifdef CUMSUM
  for (ulong start = begin; start < end; start += FOO_SCAN_BLOCK) {
    const ulong stop = min(end, start + FOO_SCAN_BLOCK);
    ct block = 0;
    for (ulong d = start; d < stop; ++d) {
      const ulong i = base + d * inner;
      block += FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, i));
      if (write) FOO_STORE(OUT, y, i, FOO_CONVERT(OUT, acc.carry + (block - acc.compensation)));
    }
    acc = foo_scan_add(acc, block);
  }
#else
  long at = 0;
  for (ulong d = begin; d < end; ++d) {
    const ulong i = base + d * inner;
    const ct v = FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, i));
#ifdef FOO_SCAN_COMBINE
    acc = d == 0 ? v : FOO_SCAN_COMBINE(acc, v);
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
    if (write) where[i] = at;
#endif
    if (write) FOO_STORE(OUT, y, i, FOO_CONVERT(OUT, acc));
  }
#endif
  return acc;
}

// The totals of each row's first slices - 1 chunks, into partial[row * (slices - 1) + s].
__kernel void scan_totals(__global const char* in, ulong in_offset, ulong outer, ulong D, ulong inner, ulong slices,
                          ulong chunk, __global char* partial_base, ulong partial_offset) {
  __global const in_t* x = FOO_PTR(const in_t, in, in_offset);
  __global foo_scan_t* partial = FOO_PTR(foo_scan_t, partial_base, partial_offset);
  const ulong chunks = slices - 1;
  for (ulong item = get_global_id(0); item < outer * inner * chunks; item += get_global_size(0)) {
    const ulong row = item / chunks, s = item % chunks;
    const ulong base = (row / inner) * D * inner + row % inner;
    partial[item] = foo_scan_range(0, 0, x, base, inner, s * chunk, min(D, (s + 1) * chunk), FOO_SCAN_INIT, false);
  }
}

__kernel void scan_contig(__global char* out, ulong out_offset, __global char* indices, ulong indices_offset,
                          __global const char* in, ulong in_offset, ulong outer, ulong D, ulong inner, ulong slices,
                          ulong chunk, __global const char* partial_base, ulong partial_offset) {
  __global const in_t* x = FOO_PTR(const in_t, in, in_offset);
  __global out_t* y = FOO_PTR(out_t, out, out_offset);
  __global long* where = FOO_PTR(long, indices, indices_offset);
  __global const foo_scan_t* partial = FOO_PTR(const foo_scan_t, partial_base, partial_offset);
  for (ulong item = get_global_id(0); item < outer * inner * slices; item += get_global_size(0)) {
    const ulong row = item / slices, s = item % slices;
    const ulong base = (row / inner) * D * inner + row % inner;
    foo_scan_t acc = FOO_SCAN_INIT;
    for (ulong c = 0; c < s; ++c) acc = FOO_SCAN_FOLD(acc, partial[row * (slices - 1) + c]);
    foo_scan_range(y, where, x, base, inner, s * chunk, min(D, (s + 1) * chunk), acc, true);
  }
}

#if defined(CUMSUM) && defined(COMPUTE_IS_FLOAT)
// Sums down the columns of rows [outer, D, inner] with inner >= 8 (cumsum along a dim other than
// the last): a work-item takes eight neighbouring columns j0 .. j0 + 7 of one `outer` index and scans
// them side by side as foo_scan_range scans one (blocks of FOO_SCAN_BLOCK, Kahan's carry), reading
// and writing eight consecutive elements a step. One column a work-item walked its rows one
// element per cache line (4096x1024, dim 0: 35 ms, the CPU 19).
typedef FOO_CAT(FOO_COMPUTE(COMPUTE), 8) ct8;
#define FOO_LOAD8_AT(p, i)                                                                                           \
  ((ct8)(FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, i)), FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 1)),                \
         FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 2)), FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 3)),           \
         FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 4)), FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 5)),           \
         FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 6)), FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, p, (i) + 7))))

__kernel void scan_columns(__global char* out, ulong out_offset, __global const char* in, ulong in_offset, ulong outer,
                           ulong D, ulong inner, ulong units) {
  __global const in_t* x = FOO_PTR(const in_t, in, in_offset);
  __global out_t* y = FOO_PTR(out_t, out, out_offset);
  const ulong blocks = (inner + 7) / 8;
  for (ulong unit = get_global_id(0); unit < units; unit += get_global_size(0)) {
    const ulong o = unit / blocks, j0 = unit % blocks * 8, base = o * D * inner;
    if (j0 + 8 > inner) {  // the last columns, one at a time
      for (ulong j = j0; j < inner; ++j) foo_scan_range(y, 0, x, base + j, inner, 0, D, FOO_SCAN_INIT, true);
      continue;
    }
    ct8 carry = 0, compensation = 0;
    for (ulong start = 0; start < D; start += FOO_SCAN_BLOCK) {
      const ulong stop = min(D, start + FOO_SCAN_BLOCK);
      ct8 block = 0;
      for (ulong d = start; d < stop; ++d) {
        const ulong i = base + d * inner + j0;
        block += FOO_LOAD8_AT(x, i);
        const ct8 v = carry + (block - compensation);
        for (int c = 0; c < 8; ++c) FOO_STORE(OUT, y, i + c, FOO_CONVERT(OUT, ((ct*)&v)[c]));
      }
      // foo_scan_add on eight lanes
      const ct8 t = block - compensation, sum = carry + t;
      compensation = select((ct8)0, (sum - carry) - t, isfinite(sum));
      carry = sum;
    }
  }
}
#endif
