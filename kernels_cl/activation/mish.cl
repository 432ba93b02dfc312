// activation/mish: x * tanh(softplus(x)) (math.clh's foo_tanh, which vectorises in float).
#define OP_VECTOR_SAFE
#define NIN 1
#include "compute.clh"
#define OP(a) ((a) * foo_tanh(log1p(exp(a))))
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VEC(a) ((a) * foo_tanh_vec(log1p(exp(a))))
#endif
#include "pointwise.clh"
