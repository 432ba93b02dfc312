// conv/im2col: writes the column matrices of a batch of volumes (conv/conv_shape.h). Only moves
// values, so DT is the unsigned-size dtype of the element size. Three kernels, the tuner's variants:
// im2col_contig, where a work-item writes column-matrix row segments (one (volume, channel, tap,
// output depth, output row) each, over every output column), VEC at a time where a segment's
// inputs are contiguous and inside the row; im2col_planes, for 2-d windows whose output has the
// plane's own size, where a work-item writes a (volume, channel, tap)'s whole block as one run
// of copies (CPUs); and im2col_elements, a work-item per element, so that neighbouring work-items
// write neighbouring elements (GPUs). Build options: DT, INDEX_T, VEC.
#define NOPERANDS 1
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;

// A column-matrix row's output row y and depth z, tap (a, i, j) and volume plane (volume * channels + channel).
typedef struct {
  int y, z, j, i, a;
  ulong plane;
} foo_col_row;

inline foo_col_row foo_col_row_of(ulong r, const foo_conv_shape* s) {
  foo_col_row c;
  c.y = (int)(r % s->out_h);
  c.z = (int)((r / s->out_h) % s->out_d);
  const ulong tap_plane = r / (s->out_h * s->out_d);  // plane * kd * kh * kw + tap
  c.j = (int)(tap_plane % s->kw);
  c.i = (int)((tap_plane / s->kw) % s->kh);
  c.a = (int)((tap_plane / (s->kw * s->kh)) % s->kd);
  c.plane = tap_plane / (s->kw * s->kh * s->kd);
  return c;
}

inline void foo_col_row_next(foo_col_row* c, const foo_conv_shape* s) {
  if (++c->y < (int)s->out_h) return;
  c->y = 0;
  if (++c->z < (int)s->out_d) return;
  c->z = 0;
  if (++c->j < (int)s->kw) return;
  c->j = 0;
  if (++c->i < (int)s->kh) return;
  c->i = 0;
  if (++c->a < (int)s->kd) return;
  c->a = 0;
  ++c->plane;
}

__kernel void im2col_contig(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                            foo_conv_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  const int out_w = (int)s.out_w, sw = (int)s.sw;
  const int width = (int)s.width, height = (int)s.height, depth = (int)s.depth;
  FOO_CARRY_LOOP(r, rows, foo_col_row, c, foo_col_row_of(r, &s), foo_col_row_next(&c, &s)) {
    const int d = c.z * (int)s.sd - (int)s.pd + c.a * (int)s.dd;
    const int h = c.y * (int)s.sh - (int)s.ph + c.i * (int)s.dh;
    __global st* dst = out + (ulong)r * out_w;
    if (d < 0 || d >= depth || h < 0 || h >= height) {
      for (int x = 0; x < out_w; ++x) dst[x] = (st)0;
      continue;
    }
    __global const st* src = in + ((c.plane * depth + d) * height + h) * width;
    const int w0 = c.j * (int)s.dw - (int)s.pw;
    // The output columns whose input column w0 + x * sw lies inside the row, [x_lo, x_hi): zeros
    // before and after them, a plain (vectorised) copy between.
    const int x_lo = min(out_w, w0 >= 0 ? 0 : sw == 1 ? -w0 : (sw - 1 - w0) / sw);
    const int x_hi = max(x_lo, min(out_w, w0 >= width ? 0 : sw == 1 ? width - w0 : (width - w0 + sw - 1) / sw));
    int x = 0;
    for (; x < x_lo; ++x) dst[x] = (st)0;
#ifdef VEC
    if (sw == 1) {
      for (; x + VEC <= x_hi; x += VEC) FOO_CAT(vstore, VEC)(FOO_CAT(vload, VEC)(0, src + w0 + x), 0, dst + x);
    }
#endif
    for (; x < x_hi; ++x) dst[x] = src[w0 + x * sw];
    for (; x < out_w; ++x) dst[x] = (st)0;
  }
}

// A 2-d window of unit stride and dilation whose output positions are the plane's own (padding
// (k - 1) / 2 each side): tap (i, j)'s block of a plane is the plane shifted by (i - ph) rows and
// (j - pw) columns, one contiguous run of copies with zeros where the shift leaves the plane,
// after which the columns the shift carried over from the neighbouring row are set to zero. The
// small CNN's column rows are 16-32 elements, whose edges im2col_contig copied one at a time.
__kernel void im2col_planes(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                            foo_conv_shape s, INDEX_T blocks) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  const int width = (int)s.width, height = (int)s.height, kw = (int)s.kw, taps = (int)(s.kh * s.kw);
  const int size = width * height;
  FOO_GRID_LOOP(b, blocks) {
    const int tap = (int)(b % taps);
    const int di = tap / kw - (int)s.ph, dj = tap % kw - (int)s.pw;
    const int shift = di * width + dj;
    __global const st* src = in + (ulong)(b / taps) * size + shift;
    __global st* dst = out + (ulong)b * size;
    // Output elements [lo, hi) read inside the plane.
    const int lo = clamp(-shift, 0, size), hi = clamp(size - shift, lo, size);
    int e = 0;
    for (; e < lo; ++e) dst[e] = (st)0;
#ifdef VEC
    for (; e + VEC <= hi; e += VEC) FOO_CAT(vstore, VEC)(FOO_CAT(vload, VEC)(0, src + e), 0, dst + e);
#endif
    for (; e < hi; ++e) dst[e] = src[e];
    for (; e < size; ++e) dst[e] = (st)0;
    // Columns x whose input column x + dj lies outside the row: [0, -dj) or [width - dj, width).
    const int x_lo = dj < 0 ? 0 : max(width - dj, 0), x_hi = dj < 0 ? min(-dj, width) : width;
    for (int row = 0; row < size; row += width) {
      for (int x = x_lo; x < x_hi; ++x) dst[row + x] = (st)0;
    }
  }
}

__kernel void im2col_elements(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                              foo_conv_shape s, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  const int width = (int)s.width, height = (int)s.height, depth = (int)s.depth;
  FOO_GRID_LOOP(e, n) {
    const int x = (int)(e % s.out_w);
    const foo_col_row c = foo_col_row_of(e / s.out_w, &s);
    const int d = c.z * (int)s.sd - (int)s.pd + c.a * (int)s.dd;
    const int h = c.y * (int)s.sh - (int)s.ph + c.i * (int)s.dh;
    const int w = x * (int)s.sw - (int)s.pw + c.j * (int)s.dw;
    const bool inside = d >= 0 && d < depth && h >= 0 && h < height && w >= 0 && w < width;
    out[e] = inside ? in[((c.plane * depth + d) * height + h) * width + w] : (st)0;
  }
}
