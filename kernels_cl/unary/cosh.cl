// unary/cosh: hyperbolic cosine.
#define NIN 1
#define OP(a) cosh(a)
#include "pointwise.clh"
