// The geometry of a convolution's column matrices (kernels_cl/conv/, csrc/launch/Conv.cpp): for a
// batch of volumes [n, channels, depth, height, width] and a window of kd x kh x kw taps (stride,
// padding, dilation), column row c * kd * kh * kw + (a * kh + i) * kw + j, column
// (z * out_h + y) * out_w + x holds the value that tap (a, i, j) of output position (z, y, x)
// reads (0 in the padding). 2-d convolutions have depth 1 and a window of depth 1.
#ifndef FOO_CL_CONV_SHAPE_H
#define FOO_CL_CONV_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 channels, depth, height, width;
  foo_int64 kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
  foo_int64 out_d, out_h, out_w;
} foo_conv_shape;

#endif  // FOO_CL_CONV_SHAPE_H
