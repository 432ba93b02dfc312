// The sizes of an upsampling (any resize, up or down) of volumes [planes, in_d, in_h, in_w] to
// [planes, out_d, out_h, out_w] (kernels_cl/upsample/upsample.cl, csrc/launch/Upsample.cpp); 2-d
// and 1-d ones have depth (and height) 1.
#ifndef FOO_CL_UPSAMPLE_SHAPE_H
#define FOO_CL_UPSAMPLE_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 in_d, in_h, in_w, out_d, out_h, out_w;
} foo_upsample_shape;

#endif  // FOO_CL_UPSAMPLE_SHAPE_H
