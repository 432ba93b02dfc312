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
  FOO_VOLUME_LOOP(g, n, s.depth, s.height, s.width, v) {
    const ulong plane = v.plane;
    const long z = v.z, y = v.y, x = v.x;
    long oz0, oz1, oy0, oy1, ox0, ox1;
    foo_reaching(z, s.kd, s.sd, s.pd, 1, s.out_d, &oz0, &oz1);
    foo_reaching(y, s.kh, s.sh, s.ph, 1, s.out_h, &oy0, &oy1);
    foo_reaching(x, s.kw, s.sw, s.pw, 1, s.out_w, &ox0, &ox1);
    const ulong base = plane * s.out_d * s.out_h * s.out_w;
    ct sum = 0;
    for (long oz = oz0; oz <= oz1; ++oz) {
      for (long oy = oy0; oy <= oy1; ++oy) {
        for (long ox = ox0; ox <= ox1; ++ox) {
          long wz0, wz1, wy0, wy1, wx0, wx1;
          ct divisor;
          if (foo_avg_window(&s, oz, oy, ox, divisor_override, &wz0, &wz1, &wy0, &wy1, &wx0, &wx1, &divisor) &&
              z >= wz0 && z < wz1 && y >= wy0 && y < wy1 && x >= wx0 && x < wx1) {
            sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, base + (oz * s.out_h + oy) * s.out_w + ox)) / divisor;
          }
        }
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
