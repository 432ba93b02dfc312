// conv/im2col: writes the column matrices of a batch of images (conv.clh). Only moves values, so
// DT is the unsigned-size dtype of the element size. Build options: DT, INDEX_T.
#define NOPERANDS 1
#include "common.clh"
#include "conv.clh"

typedef FOO_STORAGE(DT) st;

__kernel void im2col_contig(__global const char* image, ulong image_offset, __global char* cols, ulong cols_offset,
                            foo_conv_shape s, INDEX_T n) {
  __global const st* in = FOO_PTR(const st, image, image_offset);
  __global st* out = FOO_PTR(st, cols, cols_offset);
  FOO_GRID_LOOP(g, n) {
    ulong rest = g;
    const long x = rest % s.out_w;
    rest /= s.out_w;
    const long y = rest % s.out_h;
    rest /= s.out_h;
    const long j = rest % s.kw;
    rest /= s.kw;
    const long i = rest % s.kh;
    const ulong plane = rest / s.kh;  // image * channels + channel
    const long h = y * s.sh - s.ph + i * s.dh, w = x * s.sw - s.pw + j * s.dw;
    const bool inside = h >= 0 && h < s.height && w >= 0 && w < s.width;
    out[g] = inside ? in[(plane * s.height + h) * s.width + w] : (st)0;
  }
}
