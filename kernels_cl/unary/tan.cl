// unary/tan: in float math.clh's foo_tan, which vectorises.
#define NIN 1
#include "compute.clh"
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a) foo_tan_vec(a)
#endif
#define OP(a) foo_tan(a)
#include "pointwise.clh"
