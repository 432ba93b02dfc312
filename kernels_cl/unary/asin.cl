// unary/asin: arcsine.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) asin(a)
#include "pointwise.clh"
