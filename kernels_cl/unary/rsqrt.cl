// unary/rsqrt: 1 / sqrt(a) (not native rsqrt, whose accuracy varies by vendor).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) (1 / sqrt(a))
#include "pointwise.clh"
