// The sizes of a grid sampling (kernels_cl/grid_sampler/grid_sampler.cl, csrc/launch/GridSampler.cpp):
// input [n, channels, in_d, in_h, in_w], grid [n, out_d, out_h, out_w, 3], output
// [n, channels, out_d, out_h, out_w]; a 2-d one has depth 1 and grid points of 2 coordinates.
#ifndef FOO_CL_GRID_SAMPLER_SHAPE_H
#define FOO_CL_GRID_SAMPLER_SHAPE_H

#include "shared.h"

typedef struct {
  foo_int64 channels, in_d, in_h, in_w, out_d, out_h, out_w;
} foo_grid_sampler_shape;

#endif  // FOO_CL_GRID_SAMPLER_SHAPE_H
