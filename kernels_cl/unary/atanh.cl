// unary/atanh: inverse hyperbolic tangent.
#define NIN 1
#define OP(a) atanh(a)
#include "pointwise.clh"
