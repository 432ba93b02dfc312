// unary/log1p: log(1 + a).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) log1p(a)
#include "pointwise.clh"
