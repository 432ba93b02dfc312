// conv/col2im: sums column matrices back into images (conv/conv_shape.h): each image element gathers the
// taps that read it, so no atomics are needed. A work-item sums one image row. Build options: DT
// (dtype name), INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv/conv_shape.h"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

__kernel void col2im_contig(__global const char* cols, ulong cols_offset, __global char* image, ulong image_offset,
                            foo_conv_shape s, INDEX_T rows) {
  __global const st* in = FOO_PTR(const st, cols, cols_offset);
  __global st* out = FOO_PTR(st, image, image_offset);
  const int out_w = (int)s.out_w, out_h = (int)s.out_h, kw = (int)s.kw, kh = (int)s.kh;
  const int sh = (int)s.sh, sw = (int)s.sw, width = (int)s.width, height = (int)s.height;
  const ulong positions = (ulong)out_h * out_w;
  FOO_GRID_LOOP(r, rows) {
    const int h = (int)(r % height);
    const ulong plane = r / height;  // image * channels + channel
    __global const st* taps = in + plane * kh * kw * positions;
    for (int w = 0; w < width; ++w) {
      ct sum = 0;
      for (int i = 0; i < kh; ++i) {
        const int hy = h + (int)s.ph - i * (int)s.dh;
        if (hy < 0 || hy % sh != 0 || hy / sh >= out_h) continue;
        for (int j = 0; j < kw; ++j) {
          const int wx = w + (int)s.pw - j * (int)s.dw;
          if (wx < 0 || wx % sw != 0 || wx / sw >= out_w) continue;
          sum += FOO_LOAD(DT, taps, (i * kw + j) * positions + (ulong)(hy / sh) * out_w + wx / sw);
        }
      }
      FOO_STORE(DT, out, (ulong)r * width + w, sum);
    }
  }
}
