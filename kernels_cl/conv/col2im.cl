// conv/col2im: sums column matrices back into images (conv.clh): each image element gathers the
// taps that read it, so no atomics are needed. Build options: DT (dtype name), INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(DT) ct;

__kernel void col2im_contig(__global const char* cols, ulong cols_offset, __global char* image, ulong image_offset,
                            foo_conv_shape s, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, cols, cols_offset);
  __global st* out = FOO_PTR(st, image, image_offset);
  const long positions = s.out_h * s.out_w;
  FOO_GRID_LOOP(g, n) {
    const long w = g % s.width;
    const long h = (g / s.width) % s.height;
    const ulong plane = g / (s.width * s.height);  // image * channels + channel
    __global const st* rows = in + plane * s.kh * s.kw * positions;
    ct sum = 0;
    for (long i = 0; i < s.kh; ++i) {
      const long hy = h + s.ph - i * s.dh;
      if (hy < 0 || hy % s.sh != 0 || hy / s.sh >= s.out_h) continue;
      for (long j = 0; j < s.kw; ++j) {
        const long wx = w + s.pw - j * s.dw;
        if (wx < 0 || wx % s.sw != 0 || wx / s.sw >= s.out_w) continue;
        sum += FOO_LOAD(DT, rows, (i * s.kw + j) * positions + (hy / s.sh) * s.out_w + wx / s.sw);
      }
    }
    FOO_STORE(DT, out, g, sum);
  }
}
