// grid_sampler/grid_sampler: F.grid_sample in 2-d and 3-d (DIMS), forward and backward, with CPU's rules
// (ATen/native/GridSampler.h): grid values in [-1, 1] are unnormalized to input positions (corner
// pixels' centers with ALIGN_CORNERS, their outer edges without), padded (zeros: taps outside the
// input read 0; border: positions clipped to the input; reflection: reflected about the edges, then
// clipped), and sampled (bi/tri)linearly, at the nearest pixel (rounding half to even), or, in 2-d,
// bicubically (Keys' kernel, A = -0.75, each of the 16 taps padded on its own).
//
// A work-item handles one grid point over every channel. Backward: each grid point's gradient is
// its own work-item's; the input's gradient is added atomically (GRAD_INPUT, into zeros). Build
// options: DT (dtype name), INDEX_T, DIMS, MODE, PADDING, ALIGN_CORNERS, GRAD_INPUT.
#include "common.clh"
#include "atomics.clh"
#include "grid_sampler/grid_sampler_shape.h"

// As CPU's (non-vectorised) grid sampler: no multiply-adds fused, so the grid gradient, a sum of
// terms that largely cancel, rounds as CPU's does.
#pragma OPENCL FP_CONTRACT OFF

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#include "cubic.clh"

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

// Corners along depth: two in 3-d, one (z = 0, weight 1) in 2-d.
#define FOO_DEPTH_CORNERS (DIMS == 3 ? 2 : 1)

inline bool foo_inside(long z, long y, long x, const foo_grid_sampler_shape* s) {
  return z >= 0 && z < s->in_d && y >= 0 && y < s->in_h && x >= 0 && x < s->in_w;
}

inline ct foo_value(__global const st* volume, long z, long y, long x, const foo_grid_sampler_shape* s) {
  return foo_inside(z, y, x, s) ? FOO_CONVERT(DT, FOO_LOAD(DT, volume, (z * s->in_h + y) * s->in_w + x)) : (ct)0;
}

// A grid point's input position (x, y, z) and, per dim, d(position)/d(grid value); z = 0 in 2-d.
inline void foo_grid_point(__global const st* grid, ulong g, const foo_grid_sampler_shape* s, ct* x, ct* y, ct* z, ct* mult) {
  __global const st* point = grid + DIMS * g;
  *x = foo_source(FOO_CONVERT(DT, FOO_LOAD(DT, point, 0)), s->in_w, &mult[0]);
  *y = foo_source(FOO_CONVERT(DT, FOO_LOAD(DT, point, 1)), s->in_h, &mult[1]);
#if DIMS == 3
  *z = foo_source(FOO_CONVERT(DT, FOO_LOAD(DT, point, 2)), s->in_d, &mult[2]);
#else
  *z = 0;
  mult[2] = 0;
#endif
}

// The (bi/tri)linear corners of a position: lower corner (z0, y0, x0) and each corner's weight
// along each dim (index 0: lower, 1: upper).
typedef struct {
  long z0, y0, x0;
  ct wz[2], wy[2], wx[2];
} foo_corners;

inline foo_corners foo_linear_corners(ct x, ct y, ct z) {
  foo_corners k;
  const ct fx = floor(x), fy = floor(y);
  k.x0 = (long)fx;
  k.y0 = (long)fy;
  k.wx[0] = fx + 1 - x;
  k.wx[1] = x - fx;
  k.wy[0] = fy + 1 - y;
  k.wy[1] = y - fy;
#if DIMS == 3
  const ct fz = floor(z);
  k.z0 = (long)fz;
  k.wz[0] = fz + 1 - z;
  k.wz[1] = z - fz;
#else
  k.z0 = 0;
  k.wz[0] = 1;
  k.wz[1] = 0;
#endif
  return k;
}

#if MODE == MODE_BICUBIC
// The derivatives in t of foo_cubic_weights(t, -0.75) (as PyTorch's get_cubic_coefficients_grad).
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
inline bool foo_tap(ct y, ct x, const foo_grid_sampler_shape* s, long* iy, long* ix) {
  ct unused;
  *iy = (long)foo_pad(y, s->in_h, &unused);
  *ix = (long)foo_pad(x, s->in_w, &unused);
  return foo_inside(0, *iy, *ix, s);
}

// A grid point's unnormalized (unpadded) position and d(position)/d(grid value).
inline void foo_cubic_point(__global const st* grid, ulong g, const foo_grid_sampler_shape* s, ct* x, ct* y, ct* mult) {
  *x = foo_unnormalize(FOO_CONVERT(DT, FOO_LOAD(DT, grid, 2 * g)), s->in_w, &mult[0]);
  *y = foo_unnormalize(FOO_CONVERT(DT, FOO_LOAD(DT, grid, 2 * g + 1)), s->in_h, &mult[1]);
}
#endif

__kernel void grid_sample_forward(__global const char* input, ulong input_offset, __global const char* grid,
                                  ulong grid_offset, __global char* output, ulong output_offset, foo_grid_sampler_shape s,
                                  INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global const st* gr = FOO_PTR(const st, grid, grid_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  const ulong points = s.out_d * s.out_h * s.out_w, volume = s.in_d * s.in_h * s.in_w;
  FOO_GRID_LOOP(g, n) {
    const ulong batch = g / points, p = g % points;
    __global const st* image = in + batch * s.channels * volume;
    __global st* result = out + batch * s.channels * points + p;
#if MODE == MODE_BILINEAR
    ct x, y, z, mult[3];
    foo_grid_point(gr, g, &s, &x, &y, &z, mult);
    const foo_corners k = foo_linear_corners(x, y, z);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * volume;
      ct v = 0;
      for (int a = 0; a < FOO_DEPTH_CORNERS; ++a) {
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < 2; ++j) {
            v += foo_value(plane, k.z0 + a, k.y0 + i, k.x0 + j, &s) * (k.wx[j] * k.wy[i] * k.wz[a]);
          }
        }
      }
      FOO_STORE(DT, result, c * points, v);
    }
#elif MODE == MODE_NEAREST
    ct x, y, z, mult[3];
    foo_grid_point(gr, g, &s, &x, &y, &z, mult);
    const long ix = (long)rint(x), iy = (long)rint(y), iz = (long)rint(z);
    for (long c = 0; c < s.channels; ++c) FOO_STORE(DT, result, c * points, foo_value(image + c * volume, iz, iy, ix, &s));
#else
    ct x, y, mult[2];
    foo_cubic_point(gr, g, &s, &x, &y, mult);
    const ct x0 = floor(x), y0 = floor(y);
    ct wx[4], wy[4];
    foo_cubic_weights(x - x0, (ct)-0.75, wx);
    foo_cubic_weights(y - y0, (ct)-0.75, wy);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * volume;
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
#define FOO_ADD_GRAD(volume, z, y, x, v) foo_atomic_add((volume) + ((z) * s.in_h + (y)) * s.in_w + (x), (v))
#else
#define FOO_ADD_GRAD(volume, z, y, x, v) ((void)0)
#endif

// grad_grid like grid; grad_input (zeroed, with GRAD_INPUT) like input.
__kernel void grid_sample_backward(__global const char* grad_output, ulong grad_output_offset,
                                   __global const char* input, ulong input_offset, __global const char* grid,
                                   ulong grid_offset, __global char* grad_input, ulong grad_input_offset,
                                   __global char* grad_grid, ulong grad_grid_offset, foo_grid_sampler_shape s, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global const st* gr = FOO_PTR(const st, grid, grid_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  __global st* ggrid = FOO_PTR(st, grad_grid, grad_grid_offset);
  const ulong points = s.out_d * s.out_h * s.out_w, volume = s.in_d * s.in_h * s.in_w;
  FOO_GRID_LOOP(g, n) {
    const ulong batch = g / points, p = g % points;
    __global const st* image = in + batch * s.channels * volume;
    __global const st* d = gout + batch * s.channels * points + p;
    __global st* grad_image = gin + batch * s.channels * volume;
    ct gix = 0, giy = 0, giz = 0, mult[3];
#if MODE == MODE_BILINEAR
    ct x, y, z;
    foo_grid_point(gr, g, &s, &x, &y, &z, mult);
    const foo_corners k = foo_linear_corners(x, y, z);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * volume;
      __global st* grad_plane = grad_image + c * volume;
      const ct go = FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points));
      for (int a = 0; a < FOO_DEPTH_CORNERS; ++a) {
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < 2; ++j) {
            const long cz = k.z0 + a, cy = k.y0 + i, cx = k.x0 + j;
            if (!foo_inside(cz, cy, cx, &s)) continue;
            FOO_ADD_GRAD(grad_plane, cz, cy, cx, k.wx[j] * k.wy[i] * k.wz[a] * go);
            // A weight's derivative along its own dim is -1 at the lower corner, +1 at the upper.
            const ct v = foo_value(plane, cz, cy, cx, &s);
            const ct tx = v * k.wy[i] * k.wz[a] * go, ty = v * k.wx[j] * k.wz[a] * go;
            gix += j ? tx : -tx;
            giy += i ? ty : -ty;
#if DIMS == 3
            const ct tz = v * k.wx[j] * k.wy[i] * go;
            giz += a ? tz : -tz;
#endif
          }
        }
      }
    }
#elif MODE == MODE_NEAREST
    ct x, y, z;
    foo_grid_point(gr, g, &s, &x, &y, &z, mult);
    const long ix = (long)rint(x), iy = (long)rint(y), iz = (long)rint(z);
    if (foo_inside(iz, iy, ix, &s)) {
      for (long c = 0; c < s.channels; ++c) {
        FOO_ADD_GRAD(grad_image + c * volume, iz, iy, ix, FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points)));
      }
    }
    mult[0] = mult[1] = mult[2] = 0;  // piecewise constant in the grid
#else
    ct x, y;
    foo_cubic_point(gr, g, &s, &x, &y, mult);
    const ct x0 = floor(x), y0 = floor(y);
    ct wx[4], wy[4], dwx[4], dwy[4];
    foo_cubic_weights(x - x0, (ct)-0.75, wx);
    foo_cubic_weights(y - y0, (ct)-0.75, wy);
    foo_cubic_weight_grads(x - x0, dwx);
    foo_cubic_weight_grads(y - y0, dwy);
    for (long c = 0; c < s.channels; ++c) {
      __global const st* plane = image + c * volume;
      __global st* grad_plane = grad_image + c * volume;
      const ct go = FOO_CONVERT(DT, FOO_LOAD(DT, d, c * points));
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          long iy, ix;
          if (!foo_tap(y0 - 1 + j, x0 - 1 + i, &s, &iy, &ix)) continue;
          FOO_ADD_GRAD(grad_plane, 0, iy, ix, go * wx[i] * wy[j]);
          const ct v = FOO_CONVERT(DT, FOO_LOAD(DT, plane, iy * s.in_w + ix));
          gix -= v * dwx[i] * wy[j] * go;
          giy -= v * dwy[j] * wx[i] * go;
        }
      }
    }
#endif
    __global st* point = ggrid + DIMS * g;
    FOO_STORE(DT, point, 0, mult[0] * gix);
    FOO_STORE(DT, point, 1, mult[1] * giy);
#if DIMS == 3
    FOO_STORE(DT, point, 2, mult[2] * giz);
#endif
  }
}
