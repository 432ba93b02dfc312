// unary/tanh: hyperbolic tangent.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) tanh(a)
#include "pointwise.clh"
