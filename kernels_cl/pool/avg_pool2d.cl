// pool/avg_pool2d: 2-d average pooling over planes [planes, height, width] (contiguous), as CPU:
// a window's divisor is divisor_override if nonzero, else its size counting the padding
// (COUNT_INCLUDE_PAD) or not. Backward: each input element gathers grad / divisor from the outputs
// whose window holds it (no atomics). Build options: DT (dtype name), INDEX_T, COUNT_INCLUDE_PAD.
#include "common.clh"
#include "pool/pool.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

// Output (oy, ox)'s window, clipped to the input, and its divisor; false when the window is empty.
inline bool foo_avg_window(const foo_pool_shape* s, long oy, long ox, long divisor_override, long* h0, long* h1,
                           long* w0, long* w1, ct* divisor) {
  *h0 = oy * s->sh - s->ph;
  *w0 = ox * s->sw - s->pw;
  *h1 = min(*h0 + s->kh, s->height + s->ph);
  *w1 = min(*w0 + s->kw, s->width + s->pw);
  const long padded_size = (*h1 - *h0) * (*w1 - *w0);
  *h0 = max(*h0, 0L);
  *w0 = max(*w0, 0L);
  *h1 = min(*h1, s->height);
  *w1 = min(*w1, s->width);
  if (*h0 >= *h1 || *w0 >= *w1) return false;
#ifdef COUNT_INCLUDE_PAD
  const long size = padded_size;
#else
  const long size = (*h1 - *h0) * (*w1 - *w0);
#endif
  *divisor = (ct)(divisor_override != 0 ? divisor_override : size);
  return true;
}

__kernel void avg_pool2d_forward(__global const char* input, ulong input_offset, __global char* output,
                                 ulong output_offset, foo_pool_shape s, long divisor_override, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h;
    __global const st* p = in + (g / (s.out_w * s.out_h)) * s.height * s.width;
    long h0, h1, w0, w1;
    ct divisor, sum = 0;
    if (foo_avg_window(&s, oy, ox, divisor_override, &h0, &h1, &w0, &w1, &divisor)) {
      for (long h = h0; h < h1; ++h) {
        for (long w = w0; w < w1; ++w) sum += FOO_CONVERT(DT, FOO_LOAD(DT, p, h * s.width + w));
      }
      sum /= divisor;
    }
    FOO_STORE(DT, out, g, sum);
  }
}

__kernel void avg_pool2d_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                                  ulong grad_input_offset, foo_pool_shape s, long divisor_override, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long w = g % s.width, h = (g / s.width) % s.height;
    const ulong base = (g / (s.width * s.height)) * s.out_h * s.out_w;
    // Outputs whose window can hold (h, w): oy * sh - ph <= h < oy * sh - ph + kh.
    const long oy_first = max((h + s.ph - s.kh + s.sh) / s.sh, 0L), oy_last = min((h + s.ph) / s.sh, s.out_h - 1);
    const long ox_first = max((w + s.pw - s.kw + s.sw) / s.sw, 0L), ox_last = min((w + s.pw) / s.sw, s.out_w - 1);
    ct sum = 0;
    for (long oy = oy_first; oy <= oy_last; ++oy) {
      for (long ox = ox_first; ox <= ox_last; ++ox) {
        long h0, h1, w0, w1;
        ct divisor;
        if (foo_avg_window(&s, oy, ox, divisor_override, &h0, &h1, &w0, &w1, &divisor) && h >= h0 && h < h1 &&
            w >= w0 && w < w1) {
          sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, base + oy * s.out_w + ox)) / divisor;
        }
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
