// unary/lgamma: log |gamma(a)|. In float 8x faster on vectors (PoCL runs the scalar builtin slowly).
#define NIN 1
#include "compute.clh"

#define FOO_LGAMMA(a, T) (isinf(a) ? (T)INFINITY : fabs(a) < (ct)0x1p-56 ? -log(fabs(a)) : lgamma(a))
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a) FOO_LGAMMA(a, ctv)
#endif
#define OP(a) FOO_LGAMMA(a, ct)
#include "pointwise.clh"
