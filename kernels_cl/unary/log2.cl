// unary/log2: base-2 logarithm.
#define NIN 1
#define OP(a) log2(a)
#include "pointwise.clh"
