// pool/max_pool2d: 2-d max pooling over planes [planes, height, width] (contiguous). Forward: each
// output takes its window's maximum and its position h * width + w (ties keep the first, NaN
// wins, as CPU). Backward: each input element gathers the gradients of the outputs whose index
// is its own position, in CPU's order (no atomics); when windows cannot overlap, each output
// instead writes its gradient at its index into a zeroed grad_input (an input then belongs to at
// most one window: no two outputs of the forward share an index). Build options: DT, INDEX_T.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#define FOO_POOL_MAX
#include "pool/pool.clh"

__kernel void max_pool2d_forward(__global const char* input, ulong input_offset, __global char* output,
                                 ulong output_offset, __global char* indices, ulong indices_offset, foo_pool_shape s,
                                 INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  __global long* idx = FOO_PTR(long, indices, indices_offset);
  FOO_GRID_LOOP(g, n) {
    const long ox = g % s.out_w, oy = (g / s.out_w) % s.out_h;
    const ulong plane = g / (s.out_w * s.out_h);
    __global const st* p = in + plane * s.height * s.width;
    // As CPU: the default position is the first row and column inside the input.
    long h0 = oy * s.sh - s.ph, w0 = ox * s.sw - s.pw;
    while (h0 < 0) h0 += s.dh;
    while (w0 < 0) w0 += s.dw;
    long best_index;
    const ct best = foo_window_max(p, &s, oy * s.sh - s.ph, s.kh, s.dh, ox * s.sw - s.pw, s.kw, s.dw,
                                   h0 * s.width + w0, &best_index);
    FOO_STORE(DT, out, g, best);
    idx[g] = best_index;
  }
}

__kernel void max_pool2d_backward(__global const char* grad_output, ulong grad_output_offset,
                                  __global const char* indices, ulong indices_offset, __global char* grad_input,
                                  ulong grad_input_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const long* idx = FOO_PTR(const long, indices, indices_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(g, n) {
    const long w = g % s.width, h = (g / s.width) % s.height;
    const ulong plane = g / (s.width * s.height);
    const long position = h * s.width + w;
    // Outputs whose window can reach (h, w): oy * sh - ph <= h <= oy * sh - ph + (kh - 1) * dh.
    const long oy_first = max((h + s.ph - (s.kh - 1) * s.dh + s.sh - 1) / s.sh, 0L);
    const long oy_last = min((h + s.ph) / s.sh, s.out_h - 1);
    const long ox_first = max((w + s.pw - (s.kw - 1) * s.dw + s.sw - 1) / s.sw, 0L);
    const long ox_last = min((w + s.pw) / s.sw, s.out_w - 1);
    const ulong base = plane * s.out_h * s.out_w;
    ct sum = 0;
    for (long oy = oy_first; oy <= oy_last; ++oy) {
      for (long ox = ox_first; ox <= ox_last; ++ox) {
        const ulong o = base + oy * s.out_w + ox;
        if (idx[o] == position) sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, o));
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}

__kernel void max_pool2d_backward_scatter(__global const char* grad_output, ulong grad_output_offset,
                                          __global const char* indices, ulong indices_offset,
                                          __global char* grad_input, ulong grad_input_offset, foo_pool_shape s,
                                          INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const long* idx = FOO_PTR(const long, indices, indices_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_GRID_LOOP(o, n) {
    const ulong plane = o / (s.out_h * s.out_w);
    // NOTE: indices handed to the backward directly could be anything: stay inside the plane.
    if ((ulong)idx[o] < (ulong)(s.height * s.width)) {
      FOO_STORE(DT, gin, plane * s.height * s.width + idx[o], FOO_LOAD(DT, gout, o));
    }
  }
}
