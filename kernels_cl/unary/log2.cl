// unary/log2: base-2 logarithm.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) log2(a)
#include "pointwise.clh"
