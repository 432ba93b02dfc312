// The geometry of a 2-d convolution's column matrices (kernels_cl/conv/, csrc/launch/Conv.cpp): for
// a batch of images [n, channels, height, width] and a window of kh x kw taps (stride, padding,
// dilation), column row c * kh * kw + i * kw + j, column y * out_w + x holds the image value that
// tap (i, j) of output position (y, x) reads (0 in the padding).
#ifndef FOO_CL_CONV_SHAPE_H
#define FOO_CL_CONV_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 channels, height, width;
  foo_int64 kh, kw, sh, sw, ph, pw, dh, dw;
  foo_int64 out_h, out_w;
} foo_conv_shape;

#endif  // FOO_CL_CONV_SHAPE_H
