// unary/sinc: sin(pi a) / (pi a), 1 at 0 (in float through math.clh's foo_sin, which vectorises).
#define NIN 1
#include "compute.clh"
#define FOO_SINC(a, T, SIN) ((a) == 0 ? (T)1 : SIN(FOO_PI * (a)) / (FOO_PI * (a)))
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a) FOO_SINC(a, ctv, foo_sin_vec)
#endif
#define OP(a) FOO_SINC(a, ct, foo_sin)
#include "pointwise.clh"
