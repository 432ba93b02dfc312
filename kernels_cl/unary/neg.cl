// unary/neg: -a.
#define NIN 1
#define OP(a) -(a)
#include "pointwise.clh"
