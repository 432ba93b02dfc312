// unary/atan: arctangent.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) atan(a)
#include "pointwise.clh"
