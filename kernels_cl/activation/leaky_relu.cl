// activation/leaky_relu: x, or s0 x for x <= 0.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) > 0 ? (a) : (a) * s0)
#include "pointwise.clh"
