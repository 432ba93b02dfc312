// unary/reciprocal: 1 / a.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) 1 / (a)
#include "pointwise.clh"
