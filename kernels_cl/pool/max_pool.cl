// pool/max_pool: 2-d and 3-d max pooling over volumes [planes, depth, height, width] (contiguous;
// depth 1 for 2-d). Forward: each output takes its window's maximum and its position
// (z * height + y) * width + x (ties keep the first, NaN wins, as CPU). Backward: each input
// element gathers the gradients of the outputs whose index is its own position, in CPU's order
// (no atomics); when windows cannot overlap, each output instead writes its gradient at its index
// into a zeroed grad_input (an input then belongs to at most one window: no two outputs of the
// forward share an index). max_pool_2x2 takes 2x2 windows of stride 2 eight outputs at a time
// (CPU devices). Build options: DT, INDEX_T, COMPUTE_IS_FLOAT, WINDOW_2X2.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#define FOO_POOL_MAX
#include "pool/pool.clh"

// The first window position inside the input along one dim (CPU's default index).
inline long foo_first_inside(long start, long dilation) {
  while (start < 0) start += dilation;
  return start;
}

__kernel void max_pool_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, __global char* indices, ulong indices_offset, foo_pool_shape s,
                               INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  __global long* idx = FOO_PTR(long, indices, indices_offset);
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    const ulong plane = v.plane;
    const long oz = v.z, oy = v.y, ox = v.x;
    const long z0 = oz * s.sd - s.pd, y0 = oy * s.sh - s.ph, x0 = ox * s.sw - s.pw;
    const long first = (foo_first_inside(z0, s.dd) * s.height + foo_first_inside(y0, s.dh)) * s.width +
                       foo_first_inside(x0, s.dw);
    long best_index;
    const ct best = foo_window_max(in + plane * s.depth * s.height * s.width, &s, z0, s.kd, s.dd, y0, s.kh, s.dh, x0,
                                   s.kw, s.dw, first, &best_index);
    FOO_STORE(DT, out, g, best);
    idx[g] = best_index;
  }
}

#ifdef WINDOW_2X2
typedef FOO_CAT(FOO_COMPUTE(DT), 8) ct8;
typedef FOO_CAT(FOO_COMPUTE(DT), 16) ct16;
#define FOO_MASK8_float int8
#define FOO_MASK8_double long8
typedef FOO_CAT(FOO_MASK8_, DT) mask8;  // what comparing two ct8 gives

// Takes v where it is larger than best, or NaN (CPU's rule), with its positions.
#define FOO_TAKE(v, at)                                      \
  do {                                                       \
    const ct8 v_ = (v);                                      \
    const mask8 take_ = v_ > best || isnan(v_);             \
    best = select(best, v_, take_);                          \
    position = select(position, (at), convert_long8(take_)); \
  } while (0)

// 2-d windows of 2x2 with stride 2 and no padding (DT float or double): a work-item takes rows of
// outputs, eight outputs at a time from two rows of sixteen inputs.
__kernel void max_pool_2x2(__global const char* input, ulong input_offset, __global char* output, ulong output_offset,
                           __global char* indices, ulong indices_offset, foo_pool_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  __global long* idx = FOO_PTR(long, indices, indices_offset);
  FOO_GRID_LOOP(row, rows) {
    const ulong plane = row / s.out_h;
    const long y = row % s.out_h * 2;
    __global const st* volume = in + plane * s.height * s.width;
    __global const st* top = volume + y * s.width;
    long ox = 0;
    for (; ox + 8 <= s.out_w; ox += 8) {
      const ct16 a = vload16(0, top + 2 * ox), b = vload16(0, top + s.width + 2 * ox);
      const long8 first = (long8)(y * s.width + 2 * ox) + (long8)(0, 2, 4, 6, 8, 10, 12, 14);
      ct8 best = a.even;
      long8 position = first;
      FOO_TAKE(a.odd, first + 1);
      FOO_TAKE(b.even, first + s.width);
      FOO_TAKE(b.odd, first + s.width + 1);
      vstore8(best, 0, out + row * s.out_w + ox);
      vstore8(position, 0, idx + row * s.out_w + ox);
    }
    for (; ox < s.out_w; ++ox) {
      long position;
      out[row * s.out_w + ox] =
          foo_window_max(volume, &s, 0, 1, 1, y, 2, 1, 2 * ox, 2, 1, y * s.width + 2 * ox, &position);
      idx[row * s.out_w + ox] = position;
    }
  }
}
#endif

__kernel void max_pool_backward(__global const char* grad_output, ulong grad_output_offset,
                                __global const char* indices, ulong indices_offset, __global char* grad_input,
                                ulong grad_input_offset, foo_pool_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const long* idx = FOO_PTR(const long, indices, indices_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_VOLUME_LOOP(g, n, s.depth, s.height, s.width, v) {
    const ulong plane = v.plane;
    const long z = v.z, y = v.y, x = v.x;
    const long position = (z * s.height + y) * s.width + x;
    long oz0, oz1, oy0, oy1, ox0, ox1;
    foo_reaching(z, s.kd, s.sd, s.pd, s.dd, s.out_d, &oz0, &oz1);
    foo_reaching(y, s.kh, s.sh, s.ph, s.dh, s.out_h, &oy0, &oy1);
    foo_reaching(x, s.kw, s.sw, s.pw, s.dw, s.out_w, &ox0, &ox1);
    const ulong base = plane * s.out_d * s.out_h * s.out_w;
    ct sum = 0;
    for (long oz = oz0; oz <= oz1; ++oz) {
      for (long oy = oy0; oy <= oy1; ++oy) {
        for (long ox = ox0; ox <= ox1; ++ox) {
          const ulong o = base + (oz * s.out_h + oy) * s.out_w + ox;
          if (idx[o] == position) sum += FOO_CONVERT(DT, FOO_LOAD(DT, gout, o));
        }
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}

// Disjoint windows: each output's gradient goes to its index, `run` consecutive outputs a work-item
// (a row of outputs on CPU devices, a division per row rather than per output: 60 -> 17 us for
// 16x32x16x16 inputs, pthread-skylake-avx512-AMD EPYC; one output elsewhere).
__kernel void max_pool_backward_scatter(__global const char* grad_output, ulong grad_output_offset,
                                        __global const char* indices, ulong indices_offset, __global char* grad_input,
                                        ulong grad_input_offset, foo_pool_shape s, ulong run, INDEX_T items) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const long* idx = FOO_PTR(const long, indices, indices_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  const ulong volume = s.depth * s.height * s.width, outputs = s.out_d * s.out_h * s.out_w;
  FOO_GRID_LOOP(item, items) {
    const ulong first = item * run;
    __global st* plane = gin + first / outputs * volume;
    for (ulong o = first; o < first + run; ++o) {
      // NOTE: indices handed to the backward directly could be anything: stay inside the volume.
      if ((ulong)idx[o] < volume) FOO_STORE(DT, plane, idx[o], FOO_LOAD(DT, gout, o));
    }
  }
}
