// unary/atanh: inverse hyperbolic tangent.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) atanh(a)
#include "pointwise.clh"
