// unary/tanh: hyperbolic tangent.
#define NIN 1
#define OP(a) tanh(a)
#include "pointwise.clh"
