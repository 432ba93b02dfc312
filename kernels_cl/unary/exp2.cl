// unary/exp2: 2^a.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) exp2(a)
#include "pointwise.clh"
