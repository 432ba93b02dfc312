// unary/sin: sine.
#define NIN 1
#define OP(a) sin(a)
#include "pointwise.clh"
