// unary/sqrt: square root.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) sqrt(a)
#include "pointwise.clh"
