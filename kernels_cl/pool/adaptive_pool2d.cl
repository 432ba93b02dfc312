// pool/adaptive_pool2d: 2-d adaptive average and max pooling over planes [planes, height, width]
// (contiguous). Output row oy covers input rows [floor(oy * height / out_h), ceil((oy + 1) *
// height / out_h)), columns alike. Max pooling records each maximum's position h * width + w (NaN
// wins, ties keep the first, as CPU). Backward: each input element gathers from the outputs whose
// window holds it (for max, whose index is its position). Build options: DT (dtype name),
// INDEX_T, COMPUTE_IS_FLOAT.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#define FOO_POOL_MAX
#include "pool/pool.clh"

inline long foo_window_start(long o, long out_size, long size) {
  return (o * size) / out_size;
}

inline long foo_window_end(long o, long out_size, long size) {
  return ((o + 1) * size + out_size - 1) / out_size;
}

__kernel void adaptive_avg_forward(__global const char* input, ulong input_offset, __global char* output,
                                   ulong output_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h;
    __global const st* p = in + (g / (s.out_w * s.out_h)) * s.height * s.width;
    const long h0 = foo_window_start(oy, s.out_h, s.height), h1 = foo_window_end(oy, s.out_h, s.height);
    const long w0 = foo_window_start(ox, s.out_w, s.width), w1 = foo_window_end(ox, s.out_w, s.width);
    ct sum = 0;
    for (long h = h0; h < h1; ++h) {
      for (long w = w0; w < w1; ++w) sum += FOO_CONVERT(DT, FOO_LOAD(DT, p, h * s.width + w));
    }
    FOO_STORE(DT, out, g, sum / (ct)((h1 - h0) * (w1 - w0)));
  }
}

__kernel void adaptive_avg_backward(__global const char* grad_output, ulong grad_output_offset,
                                    __global char* grad_input, ulong grad_input_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long w = g % s.width, h = (g / s.width) % s.height;
    const ulong base = (g / (s.width * s.height)) * s.out_h * s.out_w;
    ct sum = 0;
    for (long oy = 0; oy < s.out_h; ++oy) {
      const long h0 = foo_window_start(oy, s.out_h, s.height), h1 = foo_window_end(oy, s.out_h, s.height);
      if (h < h0 || h >= h1) continue;
      for (long ox = 0; ox < s.out_w; ++ox) {
        const long w0 = foo_window_start(ox, s.out_w, s.width), w1 = foo_window_end(ox, s.out_w, s.width);
        if (w < w0 || w >= w1) continue;
        sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, base + oy * s.out_w + ox)) / (ct)((h1 - h0) * (w1 - w0));
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}

__kernel void adaptive_max_forward(__global const char* input, ulong input_offset, __global char* output,
                                   ulong output_offset, __global char* indices, ulong indices_offset, foo_pool_shape s,
                                   INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  __global long* idx = FOO_PTR(long, indices, indices_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h;
    __global const st* p = in + (g / (s.out_w * s.out_h)) * s.height * s.width;
    const long h0 = foo_window_start(oy, s.out_h, s.height), h1 = foo_window_end(oy, s.out_h, s.height);
    const long w0 = foo_window_start(ox, s.out_w, s.width), w1 = foo_window_end(ox, s.out_w, s.width);
    long best_index;
    const ct best = foo_window_max(p, &s, h0, h1 - h0, 1, w0, w1 - w0, 1, h0 * s.width + w0, &best_index);
    FOO_STORE(DT, out, g, best);
    idx[g] = best_index;
  }
}

__kernel void adaptive_max_backward(__global const char* grad_output, ulong grad_output_offset,
                                    __global const char* indices, ulong indices_offset, __global char* grad_input,
                                    ulong grad_input_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const long* idx = FOO_PTR(const long, indices, indices_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long w = g % s.width, h = (g / s.width) % s.height, position = h * s.width + w;
    const ulong base = (g / (s.width * s.height)) * s.out_h * s.out_w;
    ct sum = 0;
    for (long oy = 0; oy < s.out_h; ++oy) {
      if (h < foo_window_start(oy, s.out_h, s.height) || h >= foo_window_end(oy, s.out_h, s.height)) continue;
      for (long ox = 0; ox < s.out_w; ++ox) {
        const ulong o = base + oy * s.out_w + ox;
        if (idx[o] == position) sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, o));
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
