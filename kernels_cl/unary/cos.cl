// unary/cos: cosine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) cos(a)
#include "pointwise.clh"
