// The sizes of a resize of volumes [planes, in_d, in_h, in_w] to [planes, out_d, out_h, out_w]
// (kernels_cl/resize/upsample.cl, csrc/launch/Resize.cpp); 2-d and 1-d resizes have depth (and
// height) 1.
#ifndef FOO_CL_RESIZE_SHAPE_H
#define FOO_CL_RESIZE_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 in_d, in_h, in_w, out_d, out_h, out_w;
} foo_resize_shape;

#endif  // FOO_CL_RESIZE_SHAPE_H
