// unary/cos: cosine.
#define NIN 1
#define OP(a) cos(a)
#include "pointwise.clh"
