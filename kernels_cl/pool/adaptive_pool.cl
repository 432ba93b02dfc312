// pool/adaptive_pool: 2-d and 3-d adaptive average and max pooling over volumes [planes, depth,
// height, width] (contiguous; depth 1 for 2-d). Output row oy covers input rows
// [floor(oy * height / out_h), ceil((oy + 1) * height / out_h)), other dims alike. Max pooling
// records each maximum's position (z * height + y) * width + x (NaN wins, ties keep the first, as
// CPU). Backward: each input element gathers from the outputs whose window holds it (for max,
// whose index is its position). Build options: DT (dtype name), INDEX_T, COMPUTE_IS_FLOAT.
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

inline bool foo_window_holds(long o, long out_size, long size, long i) {
  return i >= foo_window_start(o, out_size, size) && i < foo_window_end(o, out_size, size);
}

// Output o's window: [*z0, *z1) x [*y0, *y1) x [*x0, *x1) of its volume.
inline void foo_adaptive_window(foo_voxel o, const foo_pool_shape* s, long* z0, long* z1, long* y0, long* y1, long* x0,
                                long* x1) {
  *z0 = foo_window_start(o.z, s->out_d, s->depth);
  *z1 = foo_window_end(o.z, s->out_d, s->depth);
  *y0 = foo_window_start(o.y, s->out_h, s->height);
  *y1 = foo_window_end(o.y, s->out_h, s->height);
  *x0 = foo_window_start(o.x, s->out_w, s->width);
  *x1 = foo_window_end(o.x, s->out_w, s->width);
}

__kernel void adaptive_avg_forward(__global const char* input, ulong input_offset, __global char* output,
                                   ulong output_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, o) {
    const ulong plane = o.plane;
    long z0, z1, y0, y1, x0, x1;
    foo_adaptive_window(o, &s, &z0, &z1, &y0, &y1, &x0, &x1);
    __global const st* p = in + plane * s.depth * s.height * s.width;
    ct sum = 0;
    for (long z = z0; z < z1; ++z) {
      for (long y = y0; y < y1; ++y) {
        for (long x = x0; x < x1; ++x) sum += FOO_CONVERT(DT, FOO_LOAD(DT, p, (z * s.height + y) * s.width + x));
      }
    }
    FOO_STORE(DT, out, g, sum / (ct)((z1 - z0) * (y1 - y0) * (x1 - x0)));
  }
}

__kernel void adaptive_avg_backward(__global const char* grad_output, ulong grad_output_offset,
                                    __global char* grad_input, ulong grad_input_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_VOLUME_LOOP(g, n, s.depth, s.height, s.width, v) {
    const ulong plane = v.plane;
    const long z = v.z, y = v.y, x = v.x;
    const ulong base = plane * s.out_d * s.out_h * s.out_w;
    ct sum = 0;
    for (long oz = 0; oz < s.out_d; ++oz) {
      if (!foo_window_holds(oz, s.out_d, s.depth, z)) continue;
      const long dz = foo_window_end(oz, s.out_d, s.depth) - foo_window_start(oz, s.out_d, s.depth);
      for (long oy = 0; oy < s.out_h; ++oy) {
        if (!foo_window_holds(oy, s.out_h, s.height, y)) continue;
        const long dy = foo_window_end(oy, s.out_h, s.height) - foo_window_start(oy, s.out_h, s.height);
        for (long ox = 0; ox < s.out_w; ++ox) {
          if (!foo_window_holds(ox, s.out_w, s.width, x)) continue;
          const long dx = foo_window_end(ox, s.out_w, s.width) - foo_window_start(ox, s.out_w, s.width);
          sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, base + (oz * s.out_h + oy) * s.out_w + ox)) / (ct)(dz * dy * dx);
        }
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
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, o) {
    const ulong plane = o.plane;
    long z0, z1, y0, y1, x0, x1;
    foo_adaptive_window(o, &s, &z0, &z1, &y0, &y1, &x0, &x1);
    long best_index;
    const ct best = foo_window_max(in + plane * s.depth * s.height * s.width, &s, z0, z1 - z0, 1, y0, y1 - y0, 1, x0,
                                   x1 - x0, 1, (z0 * s.height + y0) * s.width + x0, &best_index);
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
  FOO_VOLUME_LOOP(g, n, s.depth, s.height, s.width, v) {
    const ulong plane = v.plane;
    const long z = v.z, y = v.y, x = v.x;
    const long position = (z * s.height + y) * s.width + x;
    const ulong base = plane * s.out_d * s.out_h * s.out_w;
    ct sum = 0;
    for (long oz = 0; oz < s.out_d; ++oz) {
      if (!foo_window_holds(oz, s.out_d, s.depth, z)) continue;
      for (long oy = 0; oy < s.out_h; ++oy) {
        if (!foo_window_holds(oy, s.out_h, s.height, y)) continue;
        for (long ox = 0; ox < s.out_w; ++ox) {
          const ulong o = base + (oz * s.out_h + oy) * s.out_w + ox;
          if (idx[o] == position) sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, o));
        }
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
