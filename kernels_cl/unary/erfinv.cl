// unary/erfinv: inverse error function.
#define NIN 1
#include "compute.clh"

#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a) foo_erfinv_vec(a)
#endif
#define OP(a) foo_erfinv(a)
#include "pointwise.clh"
