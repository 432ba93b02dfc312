// unary/sin: sine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) sin(a)
#include "pointwise.clh"
