// unary/asinh: inverse hyperbolic sine.
#define NIN 1
#define OP(a) asinh(a)
#include "pointwise.clh"
