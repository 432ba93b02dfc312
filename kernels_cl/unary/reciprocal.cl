// unary/reciprocal: 1 / a.
#define NIN 1
#define OP(a) 1 / (a)
#include "pointwise.clh"
