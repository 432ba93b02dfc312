// unary/acos: arccosine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) acos(a)
#include "pointwise.clh"
