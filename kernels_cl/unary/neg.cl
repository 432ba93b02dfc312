// unary/neg: -a.
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 1
#define OP(a) -(a)
#include "pointwise.clh"
