// unary/erf: error function (in float math.clh's foo_erf, which vectorises).
#define OP_VECTOR_SAFE
#define NIN 1
#include "compute.clh"
#define OP(a) foo_erf(a)
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VEC(a) foo_erf_vec(a)
#endif
#include "pointwise.clh"
