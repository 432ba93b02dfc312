// binary/fmod: C's fmod: the sign of a. In float math.clh's foo_fmod, which vectorises.
#define NIN 2
#include "compute.clh"
#ifdef COMPUTE_IS_FLOAT
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a, b) foo_fmod_vec((ctv)(a), (ctv)(b))
#endif
#define OP(a, b) foo_fmod(a, b)
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 || FOO_BY_MINUS_ONE(b) ? (ct)0 : (a) % (b))
#endif
#include "pointwise.clh"
