// unary/cosh: hyperbolic cosine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) cosh(a)
#include "pointwise.clh"
