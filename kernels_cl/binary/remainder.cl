// binary/remainder: Python's modulo: the sign of b. In float through math.clh's foo_fmod, which vectorises.
#define NIN 2
#include "compute.clh"
#ifdef COMPUTE_IS_FLOAT
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a, b) foo_remainder_vec((ctv)(a), (ctv)(b))
#endif
#define OP(a, b) foo_remainder(a, b)
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 ? (ct)0 : foo_remainder(a, b))
#endif
#include "pointwise.clh"
