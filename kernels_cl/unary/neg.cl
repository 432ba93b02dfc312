// unary/neg: -a.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) -(a)
#include "pointwise.clh"
