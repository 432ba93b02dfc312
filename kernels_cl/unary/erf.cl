// unary/erf: error function.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) erf(a)
#include "pointwise.clh"
