// unary/log: natural logarithm.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) log(a)
#include "pointwise.clh"
