// unary/acosh: inverse hyperbolic cosine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) acosh(a)
#include "pointwise.clh"
