// The sizes of a 2-d grid sampling (kernels_cl/sample/grid_sampler.cl, csrc/launch/GridSample.cpp):
// input [n, channels, in_h, in_w], grid [n, out_h, out_w, 2], output [n, channels, out_h, out_w].
#ifndef FOO_CL_GRID_SHAPE_H
#define FOO_CL_GRID_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 channels, in_h, in_w, out_h, out_w;
} foo_grid_shape;

#endif  // FOO_CL_GRID_SHAPE_H
