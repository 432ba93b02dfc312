// unary/acos: arccosine.
#define NIN 1
#define OP(a) acos(a)
#include "pointwise.clh"
