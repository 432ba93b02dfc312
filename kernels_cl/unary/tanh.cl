// unary/tanh: hyperbolic tangent (in float math.clh's foo_tanh, which vectorises).
#define OP_VECTOR_SAFE
#define NIN 1
#include "compute.clh"
#define OP(a) foo_tanh(a)
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VEC(a) foo_tanh_vec(a)
#endif
#include "pointwise.clh"
