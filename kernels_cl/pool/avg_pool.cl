// pool/avg_pool: 2-d and 3-d average pooling over volumes [planes, depth, height, width]
// (contiguous; depth 1 for 2-d), as CPU: a window's divisor is divisor_override if nonzero, else
// its size counting the padding (COUNT_INCLUDE_PAD) or not. Backward: each input element gathers
// grad / divisor from the outputs whose window holds it (no atomics). Build options: DT (dtype
// name), INDEX_T, COUNT_INCLUDE_PAD.
#include "common.clh"
#include "pool/pool.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

// Output o's window along one dim, clipped to the input ([*lo, *hi)), and its length counting the
// padding (*padded).
inline void foo_avg_span(long o, long k, long stride, long pad, long size, long* lo, long* hi, long* padded) {
  *lo = o * stride - pad;
  *hi = min(*lo + k, size + pad);
  *padded = *hi - *lo;
  *lo = max(*lo, 0L);
  *hi = min(*hi, size);
}

// The length output o's window counts along one dim: with the padding (COUNT_INCLUDE_PAD) or not.
inline long foo_avg_extent(long o, long k, long stride, long pad, long size) {
  long lo, hi, padded;
  foo_avg_span(o, k, stride, pad, size, &lo, &hi, &padded);
#ifdef COUNT_INCLUDE_PAD
  return padded;
#else
  return hi - lo;
#endif
}

// Output (oz, oy, ox)'s window, clipped to the input, and its divisor; false when the window is
// empty.
inline bool foo_avg_window(const foo_pool_shape* s, long oz, long oy, long ox, long divisor_override, long* z0,
                           long* z1, long* y0, long* y1, long* x0, long* x1, ct* divisor) {
  long pz, py, px;
  foo_avg_span(oz, s->kd, s->sd, s->pd, s->depth, z0, z1, &pz);
  foo_avg_span(oy, s->kh, s->sh, s->ph, s->height, y0, y1, &py);
  foo_avg_span(ox, s->kw, s->sw, s->pw, s->width, x0, x1, &px);
  if (*z0 >= *z1 || *y0 >= *y1 || *x0 >= *x1) return false;
#ifdef COUNT_INCLUDE_PAD
  const long size = pz * py * px;
#else
  const long size = (*z1 - *z0) * (*y1 - *y0) * (*x1 - *x0);
#endif
  *divisor = (ct)(divisor_override != 0 ? divisor_override : size);
  return true;
}

__kernel void avg_pool_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, foo_pool_shape s, long divisor_override, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    const ulong plane = v.plane;
    const long oz = v.z, oy = v.y, ox = v.x;
    long z0, z1, y0, y1, x0, x1;
    __global const st* p = in + plane * s.depth * s.height * s.width;
    ct divisor, sum = 0;
    if (foo_avg_window(&s, oz, oy, ox, divisor_override, &z0, &z1, &y0, &y1, &x0, &x1, &divisor)) {
      for (long z = z0; z < z1; ++z) {
        for (long y = y0; y < y1; ++y) {
          for (long x = x0; x < x1; ++x) sum += FOO_CONVERT(DT, FOO_LOAD(DT, p, (z * s.height + y) * s.width + x));
        }
      }
      sum /= divisor;
    }
    FOO_STORE(DT, out, g, sum);
  }
}

__kernel void avg_pool_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                                ulong grad_input_offset, foo_pool_shape s, long divisor_override, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  // A work-item's inputs are runs along rows: a row's reaching outputs along z and y are found once
  // (their divisions per input took most of 57 ms for 32x64x56x56, 2x2 windows; the CPU 6.6 ms).
  long row = -1, oz0 = 0, oz1 = 0, oy0 = 0, oy1 = 0;
  FOO_VOLUME_LOOP(g, n, s.depth, s.height, s.width, v) {
    const ulong plane = v.plane;
    const long z = v.z, y = v.y, x = v.x;
    if (z * s.height + y != row) {
      row = z * s.height + y;
      foo_reaching(z, s.kd, s.sd, s.pd, 1, s.out_d, &oz0, &oz1);
      foo_reaching(y, s.kh, s.sh, s.ph, 1, s.out_h, &oy0, &oy1);
    }
    long ox0, ox1;
    foo_reaching(x, s.kw, s.sw, s.pw, 1, s.out_w, &ox0, &ox1);
    const ulong base = plane * s.out_d * s.out_h * s.out_w;
    // Every reaching output's window holds this input (it lies inside the volume): only their
    // divisors differ, as foo_avg_window makes them.
    ct sum = 0;
    for (long oz = oz0; oz <= oz1; ++oz) {
      const long fz = foo_avg_extent(oz, s.kd, s.sd, s.pd, s.depth);
      for (long oy = oy0; oy <= oy1; ++oy) {
        const long fy = foo_avg_extent(oy, s.kh, s.sh, s.ph, s.height);
        for (long ox = ox0; ox <= ox1; ++ox) {
          const long size = fz * fy * foo_avg_extent(ox, s.kw, s.sw, s.pw, s.width);
          const ct divisor = (ct)(divisor_override != 0 ? divisor_override : size);
          sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, base + (oz * s.out_h + oy) * s.out_w + ox)) / divisor;
        }
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
