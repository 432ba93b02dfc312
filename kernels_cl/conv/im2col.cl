// conv/im2col: writes the column matrices of a batch of volumes (conv/conv_shape.h). A work-item
// writes one column-matrix row segment: one (volume, channel, tap, output depth, output row), over
// every output column. Only moves values, so DT is the unsigned-size dtype of the element size.
// Build options: DT, INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;

__kernel void im2col_contig(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                            foo_conv_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  const int out_w = (int)s.out_w, out_h = (int)s.out_h, out_d = (int)s.out_d;
  const int kw = (int)s.kw, kh = (int)s.kh, kd = (int)s.kd;
  const int width = (int)s.width, height = (int)s.height, depth = (int)s.depth;
  FOO_GRID_LOOP(r, rows) {
    const int y = (int)(r % out_h);
    const int z = (int)((r / out_h) % out_d);
    const ulong tap_plane = r / ((ulong)out_h * out_d);  // (volume * channels + channel) * kd * kh * kw + tap
    const int j = (int)(tap_plane % kw);
    const int i = (int)((tap_plane / kw) % kh);
    const int a = (int)((tap_plane / (kw * kh)) % kd);
    const ulong plane = tap_plane / ((ulong)kw * kh * kd);
    const int d = z * (int)s.sd - (int)s.pd + a * (int)s.dd;
    const int h = y * (int)s.sh - (int)s.ph + i * (int)s.dh;
    __global st* dst = out + (ulong)r * out_w;
    if (d < 0 || d >= depth || h < 0 || h >= height) {
      for (int x = 0; x < out_w; ++x) dst[x] = (st)0;
      continue;
    }
    __global const st* src = in + ((plane * depth + d) * height + h) * width;
    int w = j * (int)s.dw - (int)s.pw;
    for (int x = 0; x < out_w; ++x, w += (int)s.sw) dst[x] = w >= 0 && w < width ? src[w] : (st)0;
  }
}
