// unary/atan: arctangent.
#define NIN 1
#define OP(a) atan(a)
#include "pointwise.clh"
