// binary/div_floor: division rounded down (Python's //).
#define NIN 2
#include "compute.clh"
#ifdef COMPUTE_IS_FLOAT
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a, b) foo_div_floor_vec((ctv)(a), (ctv)(b))
#endif
#define OP(a, b) foo_div_floor(a, b)
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 ? (ct)0 : foo_div_floor(a, b))
#endif
#include "pointwise.clh"
