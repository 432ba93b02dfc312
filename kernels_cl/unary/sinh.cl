// unary/sinh: hyperbolic sine.
#define NIN 1
#define OP(a) sinh(a)
#include "pointwise.clh"
