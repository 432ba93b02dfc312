// The geometry of 2-d pooling over planes [planes, height, width] (kernels_cl/pool/,
// csrc/launch/Pool.cpp): input and output sizes, then the window's size, stride, padding and
// dilation.
#ifndef FOO_CL_POOL_SHAPE_H
#define FOO_CL_POOL_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 height, width, out_h, out_w;
  foo_int64 kh, kw, sh, sw, ph, pw, dh, dw;
} foo_pool_shape;

#endif  // FOO_CL_POOL_SHAPE_H
