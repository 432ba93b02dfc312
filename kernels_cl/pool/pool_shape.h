// The geometry of pooling over volumes [planes, depth, height, width] (kernels_cl/pool/,
// csrc/launch/Pool.cpp): input and output sizes, then the window's size, stride, padding and
// dilation per dim. 2-d pooling is 3-d pooling of depth 1 with a window of depth 1.
#ifndef FOO_CL_POOL_SHAPE_H
#define FOO_CL_POOL_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 depth, height, width, out_d, out_h, out_w;
  foo_int64 kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
} foo_pool_shape;

#endif  // FOO_CL_POOL_SHAPE_H
