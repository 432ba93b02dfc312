// conv/depthwise: depthwise convolutions (groups = input channels, one input channel per group) and
// their gradients, directly, without column matrices: output channel co reads input channel
// co / multiplier (multiplier = output channels / input channels) through its own window of taps.
// A grouped GEMM would multiply one 1 x taps row per channel and launch once per group.
// Volumes are contiguous [n, channels, depth, height, width] (2-d convolutions have depth 1 and a
// window of depth 1, as conv_shape.h describes); the weight is [out channels, 1, kd, kh, kw].
// - depthwise_forward: a work-item takes an output row, FOO_SEGMENT positions at a time, and adds
//   each tap's products over the positions whose input lies inside the volume (bias added last);
// - depthwise_input_grad: a work-item takes an input row the same way and adds, for each of its
//   multiplier channels' taps, the gradients of the outputs that tap reads it for;
// - depthwise_weight_grad: a work-item takes a weight element and sums its tap's products over
//   every image's output rows (eight at a time along unit-stride rows), one image at a time.
// Build options: DT (dtype name), ACC, INDEX_T, WITH_BIAS.
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;
typedef FOO_CAT(FOO_COMPUTE(ACC), 8) acc8_t;
#define FOO_ACC(p, i) ((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, p, i)))
#define FOO_SEGMENT 64  // positions of a row a work-item's sums hold at a time

// Input coordinate of tap k at output position o along a dim (may fall in the padding).
#define FOO_TAP(o, k, s, p, d) ((o) * (s) - (p) + (k) * (d))

// The positions o in [lo, hi) along a row whose tap coordinate o * stride - pad + k * dilation lies
// in [0, size), within [lo, hi) as given.
inline void foo_inside(long k, long stride, long pad, long dilation, long size, long* lo, long* hi) {
  const long first = pad - k * dilation, last = size - 1 + pad - k * dilation;  // o * stride in [first, last]
  if (last < 0) {
    *hi = *lo;
    return;
  }
  *lo = max(*lo, first > 0 ? (first + stride - 1) / stride : 0L);
  *hi = max(*lo, min(*hi, last / stride + 1));
}

// An output row's taps' rows: whether tap (a, i) reads a row of the volume, and which.
#define FOO_TAP_ROW(z, y, a, i, oz, oy)                                                  \
  const long z = FOO_TAP(oz, a, s.sd, s.pd, s.dd), y = FOO_TAP(oy, i, s.sh, s.ph, s.dh); \
  if (z < 0 || z >= s.depth || y < 0 || y >= s.height) continue

__kernel void depthwise_forward(__global const char* input, ulong input_offset, __global const char* weight,
                                ulong weight_offset, __global const char* bias, ulong bias_offset,
                                __global char* output, ulong output_offset, foo_conv_shape s, ulong multiplier,
                                INDEX_T rows) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const st* w = FOO_PTR(const st, weight, weight_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  const long taps = s.kd * s.kh * s.kw, out_channels = s.channels * multiplier;
  FOO_GRID_LOOP(r, rows) {
    const long oy = r % s.out_h, oz = r / s.out_h % s.out_d, plane = r / (s.out_h * s.out_d);
    const long co = plane % out_channels, image = plane / out_channels;
    __global const st* volume = x + (image * s.channels + co / multiplier) * s.depth * s.height * s.width;
    __global const st* wc = w + co * taps;
    __global st* row_out = out + r * s.out_w;
    for (long o0 = 0; o0 < s.out_w; o0 += FOO_SEGMENT) {
      const long o1 = min(o0 + FOO_SEGMENT, (long)s.out_w);
      acc_t sum[FOO_SEGMENT];
      for (long k = 0; k < FOO_SEGMENT; ++k) sum[k] = 0;
      for (long a = 0; a < s.kd; ++a) {
        for (long i = 0; i < s.kh; ++i) {
          FOO_TAP_ROW(z, y, a, i, oz, oy);
          __global const st* row = volume + (z * s.height + y) * s.width;
          for (long j = 0; j < s.kw; ++j) {
            const acc_t wv = FOO_ACC(wc, (a * s.kh + i) * s.kw + j);
            long lo = o0, hi = o1;
            foo_inside(j, s.sw, s.pw, s.dw, s.width, &lo, &hi);
            const long shift = j * s.dw - s.pw;
            for (long o = lo; o < hi; ++o) sum[o - o0] += FOO_ACC(row, o * s.sw + shift) * wv;
          }
        }
      }
      for (long o = o0; o < o1; ++o) {
#ifdef WITH_BIAS
        FOO_STORE(DT, row_out, o, sum[o - o0] + FOO_ACC(FOO_PTR(const st, bias, bias_offset), co));
#else
        FOO_STORE(DT, row_out, o, sum[o - o0]);
#endif
      }
    }
  }
}

// The output coordinate along one dim whose tap k reads input coordinate i: (i + pad - k *
// dilation) / stride where that divides exactly and lies in [0, out), else -1.
inline long foo_tap_source(long i, long k, long stride, long pad, long dilation, long out) {
  const long t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0) return -1;
  return t / stride < out ? t / stride : -1;
}

__kernel void depthwise_input_grad(__global const char* grad_output, ulong grad_output_offset,
                                   __global const char* weight, ulong weight_offset, __global char* grad_input,
                                   ulong grad_input_offset, foo_conv_shape s, ulong multiplier, INDEX_T rows) {
  __global const st* gy = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const st* w = FOO_PTR(const st, weight, weight_offset);
  __global st* gx = FOO_PTR(st, grad_input, grad_input_offset);
  const long taps = s.kd * s.kh * s.kw, positions = s.out_d * s.out_h * s.out_w;
  FOO_GRID_LOOP(r, rows) {
    const long y = r % s.height, z = r / s.height % s.depth, plane = r / (s.height * s.depth);
    const long c = plane % s.channels, image = plane / s.channels;
    __global st* row_out = gx + r * s.width;
    for (long x0 = 0; x0 < s.width; x0 += FOO_SEGMENT) {
      const long x1 = min(x0 + FOO_SEGMENT, (long)s.width);
      acc_t sum[FOO_SEGMENT];
      for (long k = 0; k < FOO_SEGMENT; ++k) sum[k] = 0;
      for (long m = 0; m < (long)multiplier; ++m) {
        const long co = c * multiplier + m;
        __global const st* plane_gy = gy + (image * s.channels * multiplier + co) * positions;
        __global const st* wc = w + co * taps;
        for (long a = 0; a < s.kd; ++a) {
          const long oz = foo_tap_source(z, a, s.sd, s.pd, s.dd, s.out_d);
          if (oz < 0) continue;
          for (long i = 0; i < s.kh; ++i) {
            const long oy = foo_tap_source(y, i, s.sh, s.ph, s.dh, s.out_h);
            if (oy < 0) continue;
            __global const st* row = plane_gy + (oz * s.out_h + oy) * s.out_w;
            for (long j = 0; j < s.kw; ++j) {
              const acc_t wv = FOO_ACC(wc, (a * s.kh + i) * s.kw + j);
              const long shift = s.pw - j * s.dw;  // input x reads output (x + shift) / stride
              if (s.sw == 1) {
                const long lo = max(x0, -shift), hi = min(x1, (long)s.out_w - shift);
                for (long xx = lo; xx < hi; ++xx) sum[xx - x0] += FOO_ACC(row, xx + shift) * wv;
              } else {
                for (long xx = x0; xx < x1; ++xx) {
                  const long ox = foo_tap_source(xx, j, s.sw, s.pw, s.dw, s.out_w);
                  if (ox >= 0) sum[xx - x0] += FOO_ACC(row, ox) * wv;
                }
              }
            }
          }
        }
      }
      for (long xx = x0; xx < x1; ++xx) FOO_STORE(DT, row_out, xx, sum[xx - x0]);
    }
  }
}

// Weight element e = (co, tap), a work-item each.
__kernel void depthwise_weight_grad(__global const char* grad_output, ulong grad_output_offset,
                                    __global const char* input, ulong input_offset, __global char* grad_weight,
                                    ulong grad_weight_offset, foo_conv_shape s, ulong multiplier, ulong images,
                                    INDEX_T n) {
  __global const st* gy = FOO_PTR(const st, grad_output, grad_output_offset);
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global acc_t* gw = FOO_PTR(acc_t, grad_weight, grad_weight_offset);
  const long taps = s.kd * s.kh * s.kw, out_channels = s.channels * multiplier;
  const long positions = s.out_d * s.out_h * s.out_w, volume = s.depth * s.height * s.width;
  FOO_GRID_LOOP(e, n) {
    const long co = e / taps, tap = e % taps;
    const long a = tap / (s.kh * s.kw), i = tap / s.kw % s.kh, j = tap % s.kw;
    long lo = 0, hi = s.out_w;
    foo_inside(j, s.sw, s.pw, s.dw, s.width, &lo, &hi);
    const long shift = j * s.dw - s.pw;
    acc_t total = 0;
    for (ulong image = 0; image < images; ++image) {
      __global const st* plane = gy + (image * out_channels + co) * positions;
      __global const st* vol = x + (image * s.channels + co / multiplier) * volume;
      acc8_t sum8 = 0;  // one image's terms, then into the total (errors grow with images, not terms)
      acc_t sum = 0;
      for (long oz = 0; oz < s.out_d; ++oz) {
        for (long oy = 0; oy < s.out_h; ++oy) {
          FOO_TAP_ROW(z, y, a, i, oz, oy);
          __global const st* gy_row = plane + (oz * s.out_h + oy) * s.out_w;
          __global const st* x_row = vol + (z * s.height + y) * s.width;
          long o = lo;
          if (s.sw == 1) {
            for (; o + 8 <= hi; o += 8) {
              sum8 += (acc8_t)(FOO_ACC(gy_row, o), FOO_ACC(gy_row, o + 1), FOO_ACC(gy_row, o + 2), FOO_ACC(gy_row, o + 3),
                               FOO_ACC(gy_row, o + 4), FOO_ACC(gy_row, o + 5), FOO_ACC(gy_row, o + 6),
                               FOO_ACC(gy_row, o + 7)) *
                      (acc8_t)(FOO_ACC(x_row, o + shift), FOO_ACC(x_row, o + shift + 1), FOO_ACC(x_row, o + shift + 2),
                               FOO_ACC(x_row, o + shift + 3), FOO_ACC(x_row, o + shift + 4),
                               FOO_ACC(x_row, o + shift + 5), FOO_ACC(x_row, o + shift + 6),
                               FOO_ACC(x_row, o + shift + 7));
            }
          }
          for (; o < hi; ++o) sum += FOO_ACC(gy_row, o) * FOO_ACC(x_row, o * s.sw + shift);
        }
      }
      total += sum + (((sum8.s0 + sum8.s1) + (sum8.s2 + sum8.s3)) + ((sum8.s4 + sum8.s5) + (sum8.s6 + sum8.s7)));
    }
    gw[e] = total;
  }
}
