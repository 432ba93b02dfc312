// unary/tan: tangent.
#define NIN 1
#define OP(a) tan(a)
#include "pointwise.clh"
