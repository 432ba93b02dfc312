// conv/col2im: sums column matrices back into volumes (conv/conv_shape.h): each element gathers
// the taps that read it, so no atomics are needed. A work-item sums one row of a volume.
// col2im_rows (DT float or double) sums eight elements of the row at a time over the taps, each
// tap's run of columns one vector, for unit strides, and otherwise adds each tap's run of columns
// to the row in one loop (every stride-th element of the row), in the same tap order:
// col2im_contig's divisions per element and tap took 12.6 ns an element (conv_transpose2d, stride
// 2: 6.6 ms, the whole CPU op 1.8 ms).
// Build options: DT (dtype name), INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

// The output position along one dim whose tap reads input position `at` (-1 if none):
// at + pad - tap * dilation must be a multiple of the stride below out_size * stride.
inline int foo_tap_source(int at, int pad, int tap, int dilation, int stride, int out_size) {
  const int p = at + pad - tap * dilation;
  return p < 0 || p % stride != 0 || p / stride >= out_size ? -1 : p / stride;
}

// The window's taps (a, i) whose output positions (z, y) read volume row (d, h) of shape s, in tap
// order: the statement after it runs once per such tap (each inner `for` runs once where the
// source position exists).
#define FOO_ROW_TAPS(s, d, h, a, i, z, y)                                                                 \
  for (int a = 0; a < (int)(s).kd; ++a)                                                                   \
    for (int z = foo_tap_source(d, (int)(s).pd, a, (int)(s).dd, (int)(s).sd, (int)(s).out_d); z >= 0; z = -1) \
      for (int i = 0; i < (int)(s).kh; ++i)                                                               \
        for (int y = foo_tap_source(h, (int)(s).ph, i, (int)(s).dh, (int)(s).sh, (int)(s).out_h); y >= 0; y = -1)

__kernel void col2im_contig(__global const char* cols, ulong cols_offset, __global char* image, ulong image_offset,
                            foo_conv_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, cols, cols_offset);
  __global st* out = FOO_PTR(st, image, image_offset);
  const int out_w = (int)s.out_w, out_h = (int)s.out_h, out_d = (int)s.out_d;
  const int kw = (int)s.kw, kh = (int)s.kh, kd = (int)s.kd;
  const int width = (int)s.width, height = (int)s.height, depth = (int)s.depth;
  const ulong positions = (ulong)out_d * out_h * out_w;
  FOO_GRID_LOOP(r, rows) {
    const int h = (int)(r % height);
    const int d = (int)((r / height) % depth);
    const ulong plane = r / ((ulong)height * depth);  // volume * channels + channel
    __global const st* taps = in + plane * kd * kh * kw * positions;
    for (int w = 0; w < width; ++w) {
      ct sum = 0;
      FOO_ROW_TAPS(s, d, h, a, i, z, y) {
        for (int j = 0; j < kw; ++j) {
          const int x = foo_tap_source(w, (int)s.pw, j, (int)s.dw, (int)s.sw, out_w);
          if (x < 0) continue;
          sum += FOO_LOAD(DT, taps, ((a * kh + i) * kw + j) * positions + ((ulong)z * out_h + y) * out_w + x);
        }
      }
      FOO_STORE(DT, out, (ulong)r * width + w, sum);
    }
  }
}

// Eight output elements' sums over the taps of a row at a time, for unit strides: each tap adds
// the run of its columns that reads them, as one vector (zeros where the run leaves the columns).
// NOTE: not tap by tap into the row: a tap's additions read what the previous tap stored one
// element over, which a CPU does not forward from its store buffer (the small CNN's input
// gradient, 16x16x16x16 of a 3x3 window: 271-350 -> 112-195 us, pthread-skylake-avx512-AMD EPYC).
typedef FOO_CAT(FOO_COMPUTE(DT), 8) ct8;

// Columns x0 .. x0 + 7 of a tap's row of `out_w` columns at `src`, zero outside the row. `in_buffer`:
// the eight lie inside the column matrices (those outside the row belong to its neighbours).
inline ct8 foo_tap_run8(__global const ct* src, int x0, int out_w, bool in_buffer) {
  if (x0 >= 0 && x0 + 8 <= out_w) return vload8(0, src + x0);
  if (in_buffer) {
    const ct8 x = (ct8)((ct)x0) + (ct8)(0, 1, 2, 3, 4, 5, 6, 7);
    return select((ct8)(0), vload8(0, src + x0), x >= (ct8)(0) && x < (ct8)((ct)out_w));
  }
  ct run[8];
  for (int k = 0; k < 8; ++k) run[k] = x0 + k >= 0 && x0 + k < out_w ? src[x0 + k] : (ct)0;
  return vload8(0, run);
}

__kernel void col2im_rows(__global const char* cols, ulong cols_offset, __global char* image, ulong image_offset,
                          foo_conv_shape s, INDEX_T rows) {
  __global const ct* in = FOO_PTR(const ct, cols, cols_offset);
  __global ct* out = FOO_PTR(ct, image, image_offset);
  const int out_w = (int)s.out_w, out_h = (int)s.out_h, out_d = (int)s.out_d;
  const int kw = (int)s.kw, kh = (int)s.kh, kd = (int)s.kd, sw = (int)s.sw;
  const int width = (int)s.width, height = (int)s.height, depth = (int)s.depth;
  const ulong positions = (ulong)out_d * out_h * out_w;
  const long columns = (long)(rows / ((ulong)height * depth) * kd * kh * kw * positions);  // of every matrix
  FOO_GRID_LOOP(r, rows) {
    const int h = (int)(r % height);
    const int d = (int)((r / height) % depth);
    const ulong plane = r / ((ulong)height * depth);
    __global const ct* taps = in + plane * kd * kh * kw * positions;
    __global ct* row = out + (ulong)r * width;
    if (sw == 1) {
      for (int c = 0; c < width; c += 8) {
        ct8 sum = 0;
        FOO_ROW_TAPS(s, d, h, a, i, z, y) {
          for (int j = 0; j < kw; ++j) {
            __global const ct* src = taps + ((a * kh + i) * kw + j) * positions + ((ulong)z * out_h + y) * out_w;
            const int x0 = c + (int)s.pw - j * (int)s.dw;
            const long first = (long)(src - in) + x0;
            sum += foo_tap_run8(src, x0, out_w, first >= 0 && first + 8 <= columns);
          }
        }
        if (c + 8 <= width) {
          vstore8(sum, 0, row + c);
        } else {
          ct part[8];
          vstore8(sum, 0, part);
          for (int k = 0; c + k < width; ++k) row[c + k] = part[k];
        }
      }
      continue;
    }
    for (int w = 0; w < width; ++w) row[w] = 0;
    FOO_ROW_TAPS(s, d, h, a, i, z, y) {
      for (int j = 0; j < kw; ++j) {
        // Output column x's tap j reads row column x * sw - shift; the x whose column is inside the row.
        const int shift = (int)s.pw - j * (int)s.dw;
        const int lo = shift > 0 ? (shift + sw - 1) / sw : 0, hi = min(out_w, (width - 1 + shift) / sw + 1);
        __global const ct* src = taps + ((a * kh + i) * kw + j) * positions + ((ulong)z * out_h + y) * out_w;
        for (int x = lo; x < hi; ++x) row[x * sw - shift] += src[x];
      }
    }
  }
}
