// sample/grid_sampler: F.grid_sample in 2-d, forward and backward, with CPU's rules
// (ATen/native/GridSampler.h): grid values in [-1, 1] are unnormalized to input positions (corner
// pixels' centers with ALIGN_CORNERS, their outer edges without), padded (zeros: taps outside the
// input read 0; border: positions clipped to the input; reflection: reflected about the edges, then
// clipped), and sampled bilinearly, at the nearest pixel (rounding half to even), or bicubically
// (Keys' kernel, A = -0.75, each of the 16 taps padded on its own).
//
// A work-item handles one grid point over every channel. Backward: each grid point's gradient is
// its own work-item's; the input's gradient is added atomically (GRAD_INPUT, into zeros). Build
// options: DT (dtype name), INDEX_T, MODE, PADDING, ALIGN_CORNERS, GRAD_INPUT.
#include "common.clh"
#include "atomics.clh"
#include "sample/grid_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

// PyTorch's GridSamplerInterpolation and GridSamplerPadding values.
#define MODE_BILINEAR 0
#define MODE_NEAREST 1
#define MODE_BICUBIC 2
#define PADDING_ZEROS 0
#define PADDING_BORDER 1
#define PADDING_REFLECTION 2

// Grid coordinate -> input position; *grad gets d(position)/d(coordinate).
inline ct foo_unnormalize(ct coord, long size, ct* grad) {
#ifdef ALIGN_CORNERS
  *grad = (ct)(size - 1) / 2;
  return ((coord + 1) / 2) * (ct)(size - 1);
#else
  *grad = (ct)size / 2;
  return ((coord + 1) * (ct)size - 1) / 2;
#endif
}

#if PADDING != PADDING_ZEROS
inline ct foo_clip(ct in, long size, ct* grad) {
  const ct max_position = (ct)(size - 1);
  *grad = in > 0 && in < max_position ? 1 : 0;
  return in <= 0 ? 0 : in >= max_position ? max_position : in;
}
#endif

#if PADDING == PADDING_REFLECTION
// Reflects `in` about twice_low / 2 and twice_high / 2 until it lies between them.
inline ct foo_reflect(ct in, long twice_low, long twice_high, ct* grad) {
  if (twice_low == twice_high) {
    *grad = 0;
    return 0;
  }
  const ct low = (ct)twice_low / 2, span = (ct)(twice_high - twice_low) / 2;
  in -= low;
  ct sign = 1;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  const ct extra = fmod(in, span);
  const int flips = (int)floor(in / span);
  *grad = flips % 2 == 0 ? sign : -sign;
  return flips % 2 == 0 ? extra + low : span - extra + low;
}
#endif

// The padding applied to an input position; *grad gets its derivative.
inline ct foo_pad(ct position, long size, ct* grad) {
#if PADDING == PADDING_BORDER
  return foo_clip(position, size, grad);
#elif PADDING == PADDING_REFLECTION
  ct grad_reflect, grad_clip;
#ifdef ALIGN_CORNERS
  position = foo_reflect(position, 0, 2 * (size - 1), &grad_reflect);
#else
  position = foo_reflect(position, -1, 2 * size - 1, &grad_reflect);
#endif
  position = foo_clip(position, size, &grad_clip);
  *grad = grad_reflect * grad_clip;
  return position;
#else
  *grad = 1;
  return position;
#endif
}

inline ct foo_source(ct coord, long size, ct* grad) {
  ct grad_unnormalize, grad_pad;
  const ct position = foo_pad(foo_unnormalize(coord, size, &grad_unnormalize), size, &grad_pad);
  *grad = grad_unnormalize * grad_pad;
  return position;
}

inline bool foo_inside(long y, long x, const foo_grid_shape* s) {
  return y >= 0 && y < s->in_h && x >= 0 && x < s->in_w;
}

inline ct foo_value(__global const st* plane, long y, long x, const foo_grid_shape* s) {
  return foo_inside(y, x, s) ? FOO_CONVERT(DT, FOO_LOAD(DT, plane, y * s->in_w + x)) : (ct)0;
}

#if MODE == MODE_BICUBIC
// Keys' cubic convolution weights of the taps at -1, 0, 1 and 2 from a point t in [0, 1), and
// their derivatives in t.
inline void foo_cubic_weights(ct t, ct* w) {
  const ct a = (ct)-0.75;
  const ct x0 = t + 1, x1 = t, x2 = 1 - t, x3 = x2 + 1;
  w[0] = ((a * x0 - 5 * a) * x0 + 8 * a) * x0 - 4 * a;
  w[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
  w[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
  w[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
}

inline void foo_cubic_weight_grads(ct t, ct* g) {
  const ct a = (ct)-0.75;
  ct x = -1 - t;
  g[0] = (-3 * a * x - 10 * a) * x - 8 * a;
  x = -t;
  g[1] = (-3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 1 - t;
  g[2] = (3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 2 - t;
  g[3] = (3 * a * x - 10 * a) * x + 8 * a;
}

// A bicubic tap: the padded position (truncated, as CPU), and whether it lies inside the input.
inline bool foo_tap(ct y, ct x, const foo_grid_shape* s, long* iy, long* ix) {
  ct unused;
  *iy = (long)foo_pad(y, s->in_h, &unused);
  *ix = (long)foo_pad(x, s->in_w, &unused);
  return foo_inside(*iy, *ix, s);
}
#endif

__kernel void grid_sample_forward(__global const char* input, ulong input_offset, __global const char* grid,
                                  ulong grid_offset, __global char* output, ulong output_offset, foo_grid_shape s,
                                  INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global const st* gr = FOO_PTR(const st, grid, grid_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  const ulong points = s.out_h * s.out_w, plane_size = s.in_h * s.in_w;
  FOO_GRID_LOOP(g, n) {
    const ulong batch = g / points, p = g % points;
    const ct gx = FOO_CONVERT(DT, FOO_LOAD(DT, gr, 2 * g)), gy = FOO_CONVERT(DT, FOO_LOAD(DT, gr, 2 * g + 1));
    __global const st* image = in + batch * s.channels * plane_size;
    __global st* result = out + batch * s.channels * points + p;
    ct unused;
#if MODE == MODE_BILINEAR
    const ct x = foo_source(gx, s.in_w, &unused), y = foo_source(gy, s.in_h, &unused);
    const ct x0 = floor(x), y0 = floor(y), x1 = x0 + 1, y1 = y0 + 1;
    const ct nw = (x1 - x) * (y1 - y), ne = (x - x0) * (y1 - y), sw = (x1 - x) * (y - y0), se = (x - x0) * (y - y0);
    const long ix = (long)x0, iy = (long)y0;
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * plane_size;
      const ct v = foo_value(plane, iy, ix, &s) * nw + foo_value(plane, iy, ix + 1, &s) * ne +
                   foo_value(plane, iy + 1, ix, &s) * sw + foo_value(plane, iy + 1, ix + 1, &s) * se;
      FOO_STORE(DT, result, c * points, v);
    }
#elif MODE == MODE_NEAREST
    const long ix = (long)rint(foo_source(gx, s.in_w, &unused)), iy = (long)rint(foo_source(gy, s.in_h, &unused));
    for (long c = 0; c < s.channels; ++c) FOO_STORE(DT, result, c * points, foo_value(image + c * plane_size, iy, ix, &s));
#else
    const ct x = foo_unnormalize(gx, s.in_w, &unused), y = foo_unnormalize(gy, s.in_h, &unused);
    const ct x0 = floor(x), y0 = floor(y);
    ct wx[4], wy[4];
    foo_cubic_weights(x - x0, wx);
    foo_cubic_weights(y - y0, wy);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * plane_size;
      ct v = 0;
      for (int j = 0; j < 4; ++j) {
        ct row = 0;
        for (int i = 0; i < 4; ++i) {
          long iy, ix;
          const bool inside = foo_tap(y0 - 1 + j, x0 - 1 + i, &s, &iy, &ix);
          row += wx[i] * (inside ? FOO_CONVERT(DT, FOO_LOAD(DT, plane, iy * s.in_w + ix)) : (ct)0);
        }
        v += wy[j] * row;
      }
      FOO_STORE(DT, result, c * points, v);
    }
#endif
  }
}

#ifdef GRAD_INPUT
#define FOO_ADD_GRAD(plane, y, x, v) foo_atomic_add((plane) + (y) * s.in_w + (x), (v))
#else
#define FOO_ADD_GRAD(plane, y, x, v) ((void)0)
#endif

// grad_grid [n, out_h, out_w, 2]; grad_input (zeroed, with GRAD_INPUT) like input.
__kernel void grid_sample_backward(__global const char* grad_output, ulong grad_output_offset,
                                   __global const char* input, ulong input_offset, __global const char* grid,
                                   ulong grid_offset, __global char* grad_input, ulong grad_input_offset,
                                   __global char* grad_grid, ulong grad_grid_offset, foo_grid_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global const st* gr = FOO_PTR(const st, grid, grid_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  __global st* ggrid = FOO_PTR(st, grad_grid, grad_grid_offset);
  const ulong points = s.out_h * s.out_w, plane_size = s.in_h * s.in_w;
  FOO_GRID_LOOP(g, n) {
    const ulong batch = g / points, p = g % points;
    const ct gx = FOO_CONVERT(DT, FOO_LOAD(DT, gr, 2 * g)), gy = FOO_CONVERT(DT, FOO_LOAD(DT, gr, 2 * g + 1));
    __global const st* image = in + batch * s.channels * plane_size;
    __global const st* d = gout + batch * s.channels * points + p;
    __global st* grad_image = gin + batch * s.channels * plane_size;
    ct gix = 0, giy = 0, gix_mult, giy_mult;
#if MODE == MODE_BILINEAR
    const ct x = foo_source(gx, s.in_w, &gix_mult), y = foo_source(gy, s.in_h, &giy_mult);
    const ct x0 = floor(x), y0 = floor(y), x1 = x0 + 1, y1 = y0 + 1;
    const ct nw = (x1 - x) * (y1 - y), ne = (x - x0) * (y1 - y), sw = (x1 - x) * (y - y0), se = (x - x0) * (y - y0);
    const long ix = (long)x0, iy = (long)y0;
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * plane_size;
      __global st* grad_plane = grad_image + c * plane_size;
      const ct go = FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points));
      if (foo_inside(iy, ix, &s)) {
        FOO_ADD_GRAD(grad_plane, iy, ix, nw * go);
        const ct v = foo_value(plane, iy, ix, &s);
        gix -= v * (y1 - y) * go;
        giy -= v * (x1 - x) * go;
      }
      if (foo_inside(iy, ix + 1, &s)) {
        FOO_ADD_GRAD(grad_plane, iy, ix + 1, ne * go);
        const ct v = foo_value(plane, iy, ix + 1, &s);
        gix += v * (y1 - y) * go;
        giy -= v * (x - x0) * go;
      }
      if (foo_inside(iy + 1, ix, &s)) {
        FOO_ADD_GRAD(grad_plane, iy + 1, ix, sw * go);
        const ct v = foo_value(plane, iy + 1, ix, &s);
        gix -= v * (y - y0) * go;
        giy += v * (x1 - x) * go;
      }
      if (foo_inside(iy + 1, ix + 1, &s)) {
        FOO_ADD_GRAD(grad_plane, iy + 1, ix + 1, se * go);
        const ct v = foo_value(plane, iy + 1, ix + 1, &s);
        gix += v * (y - y0) * go;
        giy += v * (x - x0) * go;
      }
    }
#elif MODE == MODE_NEAREST
    const long ix = (long)rint(foo_source(gx, s.in_w, &gix_mult)), iy = (long)rint(foo_source(gy, s.in_h, &giy_mult));
    if (foo_inside(iy, ix, &s)) {
      for (long c = 0; c < s.channels; ++c) {
        FOO_ADD_GRAD(grad_image + c * plane_size, iy, ix, FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points)));
      }
    }
#else
    const ct x = foo_unnormalize(gx, s.in_w, &gix_mult), y = foo_unnormalize(gy, s.in_h, &giy_mult);
    const ct x0 = floor(x), y0 = floor(y);
    ct wx[4], wy[4], dwx[4], dwy[4];
    foo_cubic_weights(x - x0, wx);
    foo_cubic_weights(y - y0, wy);
    foo_cubic_weight_grads(x - x0, dwx);
    foo_cubic_weight_grads(y - y0, dwy);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * plane_size;
      __global st* grad_plane = grad_image + c * plane_size;
      const ct go = FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points));
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          long iy, ix;
          if (!foo_tap(y0 - 1 + j, x0 - 1 + i, &s, &iy, &ix)) continue;
          FOO_ADD_GRAD(grad_plane, iy, ix, go * wx[i] * wy[j]);
          const ct v = FOO_CONVERT(DT, FOO_LOAD(DT, plane, iy * s.in_w + ix));
          gix -= v * dwx[i] * wy[j] * go;
          giy -= v * dwy[j] * wx[i] * go;
        }
      }
    }
#endif
#if MODE == MODE_NEAREST
    FOO_STORE(DT, ggrid, 2 * g, (ct)0);
    FOO_STORE(DT, ggrid, 2 * g + 1, (ct)0);
#else
    FOO_STORE(DT, ggrid, 2 * g, gix_mult * gix);
    FOO_STORE(DT, ggrid, 2 * g + 1, giy_mult * giy);
#endif
  }
}
