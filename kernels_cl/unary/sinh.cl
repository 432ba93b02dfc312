// unary/sinh: hyperbolic sine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) sinh(a)
#include "pointwise.clh"
