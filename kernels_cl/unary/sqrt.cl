// unary/sqrt: square root.
#define NIN 1
#define OP(a) sqrt(a)
#include "pointwise.clh"
