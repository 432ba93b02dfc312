// conv/im2col: writes the column matrices of a batch of images (conv/conv_shape.h). A work-item writes one
// column-matrix row segment: one (image, channel, tap, output row), over every output column.
// Only moves values, so DT is the unsigned-size dtype of the element size. Build options: DT,
// INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;

__kernel void im2col_contig(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                            foo_conv_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  const int out_w = (int)s.out_w, out_h = (int)s.out_h, kw = (int)s.kw, kh = (int)s.kh;
  const int width = (int)s.width, height = (int)s.height;
  FOO_GRID_LOOP(r, rows) {
    const int y = (int)(r % out_h);
    const ulong tap_plane = r / out_h;  // (image * channels + channel) * kh * kw + i * kw + j
    const int j = (int)(tap_plane % kw);
    const int i = (int)((tap_plane / kw) % kh);
    const ulong plane = tap_plane / (kw * kh);
    const int h = y * (int)s.sh - (int)s.ph + i * (int)s.dh;
    __global st* dst = out + (ulong)r * out_w;
    if (h < 0 || h >= height) {
      for (int x = 0; x < out_w; ++x) dst[x] = (st)0;
      continue;
    }
    __global const st* src = in + (plane * height + h) * width;
    int w = j * (int)s.dw - (int)s.pw;
    for (int x = 0; x < out_w; ++x, w += (int)s.sw) dst[x] = w >= 0 && w < width ? src[w] : (st)0;
  }
}
