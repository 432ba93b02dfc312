// ternary/addcmul: a + s0 * b * c.
#define OP_VECTOR_SAFE
#define NIN 3
#define OP(a, b, c) ((a) + s0 * (b) * (c))
#include "pointwise.clh"
