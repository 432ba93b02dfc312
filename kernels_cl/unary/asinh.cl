// unary/asinh: inverse hyperbolic sine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) asinh(a)
#include "pointwise.clh"
