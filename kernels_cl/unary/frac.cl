// unary/frac: fractional part.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) - trunc(a))
#include "pointwise.clh"
