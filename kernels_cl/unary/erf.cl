// unary/erf: error function.
#define NIN 1
#define OP(a) erf(a)
#include "pointwise.clh"
