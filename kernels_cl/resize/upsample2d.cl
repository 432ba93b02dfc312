// resize/upsample2d: nearest and bilinear 2-d upsampling of planes [planes, in_h, in_w] to
// [planes, out_h, out_w] (contiguous), with CPU's source-index rules (scale_h/w as CPU computes
// them: in / out, 1 / scale_factor, or (in - 1) / (out - 1) with ALIGN_CORNERS; float for nearest,
// the compute type for bilinear). Nearest backward
// gathers from the outputs that read each input (a contiguous run of them per dim); bilinear
// backward adds each output's gradient to its four inputs atomically. Build options: DT (dtype
// name), INDEX_T, ALIGN_CORNERS.
#include "common.clh"
#include "atomics.clh"
#include "resize/resize_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;


inline long foo_nearest_source(long dst, float scale, long in_size) {
  return min((long)floor((float)dst * scale), in_size - 1);
}

// The outputs [first, last) whose nearest source along one dim is `src`.
inline void foo_nearest_run(long src, float scale, long in_size, long out_size, long* first, long* last) {
  long o = max((long)((float)src / scale) - 2, 0L);
  while (o < out_size && foo_nearest_source(o, scale, in_size) < src) ++o;
  *first = o;
  while (o < out_size && foo_nearest_source(o, scale, in_size) == src) ++o;
  *last = o;
}

// Bilinear source position of output `dst` along one dim: the two inputs and their weights.
inline void foo_bilinear_source(long dst, ct scale, long in_size, long* i0, long* i1, ct* w0, ct* w1) {
#ifdef ALIGN_CORNERS
  const ct src = scale * (ct)dst;
#else
  const ct src = max(scale * ((ct)dst + (ct)0.5) - (ct)0.5, (ct)0);
#endif
  *i0 = (long)src;
  *i1 = *i0 + (*i0 < in_size - 1 ? 1 : 0);
  *w1 = src - (ct)*i0;
  *w0 = (ct)1 - *w1;
}

__kernel void nearest_forward(__global const char* input, ulong input_offset, __global char* output,
                              ulong output_offset, foo_resize_shape s, float scale_h, float scale_w, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h, plane = g / (s.out_w * s.out_h);
    const long iy = foo_nearest_source(oy, scale_h, s.in_h), ix = foo_nearest_source(ox, scale_w, s.in_w);
    FOO_STORE(DT, out, g, FOO_LOAD(DT, in, (plane * s.in_h + iy) * s.in_w + ix));
  }
}

__kernel void nearest_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                               ulong grad_input_offset, foo_resize_shape s, float scale_h, float scale_w, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long ix = g % s.in_w, iy = (g / s.in_w) % s.in_h, plane = g / (s.in_w * s.in_h);
    long y0, y1, x0, x1;
    foo_nearest_run(iy, scale_h, s.in_h, s.out_h, &y0, &y1);
    foo_nearest_run(ix, scale_w, s.in_w, s.out_w, &x0, &x1);
    ct sum = 0;
    for (long oy = y0; oy < y1; ++oy) {
      for (long ox = x0; ox < x1; ++ox) sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, (plane * s.out_h + oy) * s.out_w + ox));
    }
    FOO_STORE(DT, gin, g, sum);
  }
}

__kernel void bilinear_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, foo_resize_shape s, ct scale_h, ct scale_w, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h, plane = g / (s.out_w * s.out_h);
    long y0, y1, x0, x1;
    ct wy0, wy1, wx0, wx1;
    foo_bilinear_source(oy, scale_h, s.in_h, &y0, &y1, &wy0, &wy1);
    foo_bilinear_source(ox, scale_w, s.in_w, &x0, &x1, &wx0, &wx1);
    __global const st* p = in + plane * s.in_h * s.in_w;
#define AT(y, x) ((ct)FOO_CONVERT(DT, FOO_LOAD(DT, p, (y) * s.in_w + (x))))
    const ct v = wy0 * (wx0 * AT(y0, x0) + wx1 * AT(y0, x1)) + wy1 * (wx0 * AT(y1, x0) + wx1 * AT(y1, x1));
#undef AT
    FOO_STORE(DT, out, g, v);
  }
}

__kernel void bilinear_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                                ulong grad_input_offset, foo_resize_shape s, ct scale_h, ct scale_w, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h, plane = g / (s.out_w * s.out_h);
    long y0, y1, x0, x1;
    ct wy0, wy1, wx0, wx1;
    foo_bilinear_source(oy, scale_h, s.in_h, &y0, &y1, &wy0, &wy1);
    foo_bilinear_source(ox, scale_w, s.in_w, &x0, &x1, &wx0, &wx1);
    const ct d = FOO_CONVERT(DT, FOO_LOAD(DT, gout, g));
    __global st* p = gin + plane * s.in_h * s.in_w;
    foo_atomic_add(p + y0 * s.in_w + x0, wy0 * wx0 * d);
    foo_atomic_add(p + y0 * s.in_w + x1, wy0 * wx1 * d);
    foo_atomic_add(p + y1 * s.in_w + x0, wy1 * wx0 * d);
    foo_atomic_add(p + y1 * s.in_w + x1, wy1 * wx1 * d);
  }
}
