// The sizes of a 2-d resize of planes [planes, in_h, in_w] to [planes, out_h, out_w]
// (kernels_cl/resize/upsample2d.cl, csrc/launch/Resize.cpp).
#ifndef FOO_CL_RESIZE_SHAPE_H
#define FOO_CL_RESIZE_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 in_h, in_w, out_h, out_w;
} foo_resize_shape;

#endif  // FOO_CL_RESIZE_SHAPE_H
