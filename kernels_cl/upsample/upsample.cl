// upsample/upsample: F.interpolate's modes over volumes [planes, in_d, in_h, in_w] to
// [planes, out_d, out_h, out_w] (contiguous), with CPU's source-index and weight rules. The last
// DIMS (1, 2 or 3) dims are resized; the others have size 1 and a single tap of weight 1.
//
// Each output is a separable weighted sum of input taps: per dim, foo_taps gives the taps' first
// index, count and weights for output position o. Modes (build option MODE):
//   MODE_NEAREST        floor(o * scale) (float), as CPU's "nearest";
//   MODE_NEAREST_EXACT  floor((o + 0.5) * scale) (float), as "nearest-exact";
//   MODE_LINEAR         two taps at max(scale * (o + 0.5) - 0.5, 0) (or scale * o with
//                       ALIGN_CORNERS); a copy where the size is unchanged;
//   MODE_CUBIC          four taps around scale * (o + 0.5) - 0.5, Keys' kernel with A = -0.75,
//                       indices clamped to the input;
//   MODE_AA_LINEAR, MODE_AA_CUBIC  antialiased: the triangle (or Keys' A = -0.5) filter stretched by
//                       the scale when downsampling, over the inputs within its support around
//                       scale * (o + 0.5), weights normalised to sum to 1 (Pillow's resampling).
// Scales are what CPU computes them as: in / out, 1 / scale_factor, or (in - 1) / (out - 1) with
// ALIGN_CORNERS; float for the nearest modes, the compute type otherwise.
//
// Backward: the nearest modes gather, for each input, the outputs whose source it is (a
// contiguous run per dim); the others add each output's weighted gradient to its taps atomically.
// Build options: DT (dtype name), INDEX_T, DIMS, MODE, ALIGN_CORNERS.
#include "common.clh"
#include "atomics.clh"
#include "upsample/upsample_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

#include "cubic.clh"

#define MODE_NEAREST 0
#define MODE_NEAREST_EXACT 1
#define MODE_LINEAR 2
#define MODE_CUBIC 3
#define MODE_AA_LINEAR 4
#define MODE_AA_CUBIC 5

#if MODE == MODE_NEAREST || MODE == MODE_NEAREST_EXACT
typedef float scale_t;
#else
typedef ct scale_t;
#endif

// The taps of one output position along one dim: inputs first + j (j < count), clamped to the
// input for cubic; weights from weight[] or, antialiased, from the filter around `center`.
typedef struct {
  long first, count, in_size;
  ct weight[4];
  ct center, invscale, total;
} foo_taps;

#if MODE == MODE_NEAREST || MODE == MODE_NEAREST_EXACT
inline long foo_nearest_source(long o, float scale, long in_size) {
#if MODE == MODE_NEAREST
  return min((long)floor((float)o * scale), in_size - 1);
#else
  return min((long)floor(((float)o + 0.5f) * scale), in_size - 1);
#endif
}

// The outputs [first, last) whose source along one dim is `src`.
inline void foo_nearest_run(long src, float scale, long in_size, long out_size, long* first, long* last) {
  long o = max((long)((float)src / scale) - 2, 0L);
  while (o < out_size && foo_nearest_source(o, scale, in_size) < src) ++o;
  *first = o;
  while (o < out_size && foo_nearest_source(o, scale, in_size) == src) ++o;
  *last = o;
}
#endif

#if MODE == MODE_AA_LINEAR
inline ct foo_filter(ct x) {
  x = fabs(x);
  return x < 1 ? 1 - x : 0;
}
#define FOO_FILTER_SUPPORT 1
#elif MODE == MODE_AA_CUBIC
inline ct foo_filter(ct x) {
  x = fabs(x);
  return x < 1 ? foo_cubic1(x, (ct)-0.5) : x < 2 ? foo_cubic2(x, (ct)-0.5) : 0;
}
#define FOO_FILTER_SUPPORT 2
#endif

inline void foo_make_taps(long o, long in_size, long out_size, scale_t scale, foo_taps* t) {
  t->in_size = in_size;
#if MODE == MODE_NEAREST || MODE == MODE_NEAREST_EXACT
  t->first = foo_nearest_source(o, scale, in_size);
  t->count = 1;
  t->weight[0] = 1;
#elif MODE == MODE_LINEAR
  if (in_size == out_size) {  // as CPU: a copy
    t->first = o;
    t->count = 1;
    t->weight[0] = 1;
    return;
  }
  t->count = 2;
#ifdef ALIGN_CORNERS
  const ct src = scale * (ct)o;
#else
  const ct src = max(scale * ((ct)o + (ct)0.5) - (ct)0.5, (ct)0);
#endif
  t->first = min((long)floor((float)src), in_size - 1);
  const ct lambda = min(max(src - (ct)t->first, (ct)0), (ct)1);
  t->weight[0] = (ct)1 - lambda;
  t->weight[1] = lambda;
#elif MODE == MODE_CUBIC
#ifdef ALIGN_CORNERS
  const ct src = scale * (ct)o;
#else
  const ct src = scale * ((ct)o + (ct)0.5) - (ct)0.5;
#endif
  t->first = min((long)floor((float)src), in_size - 1) - 1;
  t->count = 4;
  foo_cubic_weights(min(max(src - (ct)(t->first + 1), (ct)0), (ct)1), (ct)-0.75, t->weight);
#else  // antialiased
  const ct support = scale >= 1 ? FOO_FILTER_SUPPORT * scale : (ct)FOO_FILTER_SUPPORT;
  const long max_taps = (long)ceil(support) * 2 + 1;
  t->center = scale * ((ct)o + (ct)0.5);
  t->invscale = scale >= 1 ? 1 / scale : (ct)1;
  t->first = max((long)(t->center - support + (ct)0.5), 0L);
  t->count = clamp(min((long)(t->center + support + (ct)0.5), in_size) - t->first, 0L, max_taps);
  t->total = 0;
  for (long j = 0; j < t->count; ++j) t->total += foo_filter(((ct)(j + t->first) - t->center + (ct)0.5) * t->invscale);
#endif
}

// Tap j's input index (the last input repeats past the end for linear, both ends for cubic) and
// weight.
inline long foo_tap_index(const foo_taps* t, long j) {
#if MODE == MODE_LINEAR || MODE == MODE_CUBIC
  return clamp(t->first + j, 0L, t->in_size - 1);
#else
  return t->first + j;
#endif
}

inline ct foo_tap_weight(const foo_taps* t, long j) {
#if MODE == MODE_AA_LINEAR || MODE == MODE_AA_CUBIC
  const ct w = foo_filter(((ct)(j + t->first) - t->center + (ct)0.5) * t->invscale);
  return t->total != 0 ? w / t->total : w;
#else
  return t->weight[j];
#endif
}

// A dim that is not resized: one tap of weight 1 (antialiased: the filter's peak, at its center).
inline void foo_single_tap(foo_taps* t) {
  t->first = 0;
  t->count = 1;
  t->in_size = 1;
  t->weight[0] = 1;
  t->center = (ct)0.5;
  t->invscale = 1;
  t->total = 1;
}

// The taps of output (oz, oy, ox) along each dim.
inline void foo_output_taps(const foo_upsample_shape* s, long oz, long oy, long ox, scale_t scale_d, scale_t scale_h,
                            scale_t scale_w, foo_taps* tz, foo_taps* ty, foo_taps* tx) {
#if DIMS == 3
  foo_make_taps(oz, s->in_d, s->out_d, scale_d, tz);
#else
  foo_single_tap(tz);
#endif
#if DIMS >= 2
  foo_make_taps(oy, s->in_h, s->out_h, scale_h, ty);
#else
  foo_single_tap(ty);
#endif
  foo_make_taps(ox, s->in_w, s->out_w, scale_w, tx);
}

#if MODE == MODE_LINEAR
// linear's taps of output o along one dim, as foo_make_taps and foo_tap_index give them, in
// registers: inputs i0 and i1 with weights w0 and w1, or i0 alone (weight 1) where `two` is false.
// NOTE: the forward's general loop over foo_taps (arrays in private memory, loops of unknown
// count) took 11 ns an output (bilinear 2x of 16x32x64x64: 95 ms, CPU 6-16 ms).
typedef struct {
  long i0, i1;
  ct w0, w1;
  bool two;
} foo_lerp;

inline foo_lerp foo_lerp_of(long o, long in_size, long out_size, ct scale) {
  foo_taps t;
  foo_make_taps(o, in_size, out_size, scale, &t);
  foo_lerp l = {foo_tap_index(&t, 0), 0, t.weight[0], 0, t.count == 2};
  if (l.two) {
    l.i1 = foo_tap_index(&t, 1);
    l.w1 = t.weight[1];
  }
  return l;
}

inline foo_lerp foo_lerp_single(void) {
  const foo_lerp l = {0, 0, 1, 0, false};
  return l;
}

// Each sum starts from its first term, as CPU's (and the general loop's below).
inline ct foo_lerp_row(__global const st* row, foo_lerp x) {
  ct sum = FOO_CONVERT(DT, FOO_LOAD(DT, row, x.i0)) * x.w0;
  if (x.two) sum += FOO_CONVERT(DT, FOO_LOAD(DT, row, x.i1)) * x.w1;
  return sum;
}

inline ct foo_lerp_plane(__global const st* volume, long z, long in_h, long in_w, foo_lerp y, foo_lerp x) {
  ct sum = foo_lerp_row(volume + (z * in_h + y.i0) * in_w, x) * y.w0;
  if (y.two) sum += foo_lerp_row(volume + (z * in_h + y.i1) * in_w, x) * y.w1;
  return sum;
}

__kernel void upsample_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, foo_upsample_shape s, scale_t scale_d, scale_t scale_h,
                               scale_t scale_w, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  // A work-item's outputs are runs along rows: a row's taps along z and y are made once.
  foo_lerp z = foo_lerp_single(), y = foo_lerp_single();
  long row = -1;
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    if (v.z * s.out_h + v.y != row) {
      row = v.z * s.out_h + v.y;
#if DIMS == 3
      z = foo_lerp_of(v.z, s.in_d, s.out_d, scale_d);
#endif
#if DIMS >= 2
      y = foo_lerp_of(v.y, s.in_h, s.out_h, scale_h);
#endif
    }
    const foo_lerp x = foo_lerp_of(v.x, s.in_w, s.out_w, scale_w);
    __global const st* p = in + v.plane * s.in_d * s.in_h * s.in_w;
    ct sum = foo_lerp_plane(p, z.i0, s.in_h, s.in_w, y, x) * z.w0;
    if (z.two) sum += foo_lerp_plane(p, z.i1, s.in_h, s.in_w, y, x) * z.w1;
    FOO_STORE(DT, out, g, sum);
  }
}
#elif MODE == MODE_NEAREST || MODE == MODE_NEAREST_EXACT
// An output copies its source; a work-item finds a row's source row once (the general loop's taps
// per output took 2.3 ns an output: nearest 2x of 16x32x64x64 19 ms, the CPU 2.7-14 ms).
__kernel void upsample_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, foo_upsample_shape s, scale_t scale_d, scale_t scale_h,
                               scale_t scale_w, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  long row = -1, z = 0, y = 0;
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    if (v.z * s.out_h + v.y != row) {
      row = v.z * s.out_h + v.y;
#if DIMS == 3
      z = foo_nearest_source(v.z, scale_d, s.in_d);
#endif
#if DIMS >= 2
      y = foo_nearest_source(v.y, scale_h, s.in_h);
#endif
    }
    __global const st* source = in + ((v.plane * s.in_d + z) * s.in_h + y) * s.in_w;
    FOO_STORE(DT, out, g, FOO_CONVERT(DT, FOO_LOAD(DT, source, foo_nearest_source(v.x, scale_w, s.in_w))));
  }
}
#else
__kernel void upsample_forward(__global const char* input, ulong input_offset, __global char* output,
                               ulong output_offset, foo_upsample_shape s, scale_t scale_d, scale_t scale_h,
                               scale_t scale_w, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, input, input_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    const ulong plane = v.plane;
    const long oz = v.z, oy = v.y, ox = v.x;
    foo_taps tz, ty, tx;
    foo_output_taps(&s, oz, oy, ox, scale_d, scale_h, scale_w, &tz, &ty, &tx);
    __global const st* p = in + plane * s.in_d * s.in_h * s.in_w;
    // Each sum starts from its first term, as CPU's: a single tap of weight 1 copies (-0.0 too).
    ct sum = 0;
    for (long a = 0; a < tz.count; ++a) {
      const long z = foo_tap_index(&tz, a);
      ct sum_y = 0;
      for (long i = 0; i < ty.count; ++i) {
        __global const st* row = p + (z * s.in_h + foo_tap_index(&ty, i)) * s.in_w;
        ct sum_x = 0;
        for (long j = 0; j < tx.count; ++j) {
          const ct term = FOO_CONVERT(DT, FOO_LOAD(DT, row, foo_tap_index(&tx, j))) * foo_tap_weight(&tx, j);
          sum_x = j == 0 ? term : sum_x + term;
        }
        sum_y = i == 0 ? sum_x * foo_tap_weight(&ty, i) : sum_y + sum_x * foo_tap_weight(&ty, i);
      }
      sum = a == 0 ? sum_y * foo_tap_weight(&tz, a) : sum + sum_y * foo_tap_weight(&tz, a);
    }
    FOO_STORE(DT, out, g, sum);
  }
}
#endif

#if MODE == MODE_NEAREST || MODE == MODE_NEAREST_EXACT
__kernel void upsample_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                                ulong grad_input_offset, foo_upsample_shape s, scale_t scale_d, scale_t scale_h,
                                scale_t scale_w, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  // A work-item's inputs are runs along rows: a row's runs of outputs along z and y are found once.
  long row = -1, z0 = 0, z1 = 1, y0 = 0, y1 = 1;
  FOO_VOLUME_LOOP(g, n, s.in_d, s.in_h, s.in_w, v) {
    const ulong plane = v.plane;
    const long ix = v.x;
    if (v.z * s.in_h + v.y != row) {
      row = v.z * s.in_h + v.y;
#if DIMS == 3
      foo_nearest_run(v.z, scale_d, s.in_d, s.out_d, &z0, &z1);
#endif
#if DIMS >= 2
      foo_nearest_run(v.y, scale_h, s.in_h, s.out_h, &y0, &y1);
#endif
    }
    long x0, x1;
    foo_nearest_run(ix, scale_w, s.in_w, s.out_w, &x0, &x1);
    __global const st* p = gout + plane * s.out_d * s.out_h * s.out_w;
    ct sum = 0;
    for (long oz = z0; oz < z1; ++oz) {
      for (long oy = y0; oy < y1; ++oy) {
        for (long ox = x0; ox < x1; ++ox) sum += FOO_CONVERT(DT, FOO_LOAD(DT, p, (oz * s.out_h + oy) * s.out_w + ox));
      }
    }
    FOO_STORE(DT, gin, g, sum);
  }
}
#else
__kernel void upsample_backward(__global const char* grad_output, ulong grad_output_offset, __global char* grad_input,
                                ulong grad_input_offset, foo_upsample_shape s, scale_t scale_d, scale_t scale_h,
                                scale_t scale_w, INDEX_T n) {
  __global const st* gout = FOO_PTR(const st, grad_output, grad_output_offset);
  __global st* gin = FOO_PTR(st, grad_input, grad_input_offset);
  FOO_VOLUME_LOOP(g, n, s.out_d, s.out_h, s.out_w, v) {
    const ulong plane = v.plane;
    const long oz = v.z, oy = v.y, ox = v.x;
    foo_taps tz, ty, tx;
    foo_output_taps(&s, oz, oy, ox, scale_d, scale_h, scale_w, &tz, &ty, &tx);
    const ct d = FOO_CONVERT(DT, FOO_LOAD(DT, gout, g));
    __global st* p = gin + plane * s.in_d * s.in_h * s.in_w;
    for (long a = 0; a < tz.count; ++a) {
      const long z = foo_tap_index(&tz, a);
      const ct wz = foo_tap_weight(&tz, a) * d;
      for (long i = 0; i < ty.count; ++i) {
        __global st* row = p + (z * s.in_h + foo_tap_index(&ty, i)) * s.in_w;
        const ct wy = foo_tap_weight(&ty, i) * wz;
        for (long j = 0; j < tx.count; ++j) foo_atomic_add(row + foo_tap_index(&tx, j), foo_tap_weight(&tx, j) * wy);
      }
    }
  }
}
#endif
