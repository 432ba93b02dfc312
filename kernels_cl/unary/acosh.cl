// unary/acosh: inverse hyperbolic cosine.
#define NIN 1
#define OP(a) acosh(a)
#include "pointwise.clh"
