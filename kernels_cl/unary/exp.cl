// unary/exp: e^a.
#define NIN 1
#define OP(a) exp(a)
#include "pointwise.clh"
