// unary/tan: tangent.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) tan(a)
#include "pointwise.clh"
