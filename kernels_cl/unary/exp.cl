// unary/exp: e^a.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) exp(a)
#include "pointwise.clh"
