// unary/log10: base-10 logarithm.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) log10(a)
#include "pointwise.clh"
