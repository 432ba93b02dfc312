// unary/expm1: e^a - 1.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) expm1(a)
#include "pointwise.clh"
