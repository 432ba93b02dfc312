// activation/leaky_relu_backward: a: x (or the result), b: gradient.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) > 0 ? (b) : (b) * s0)
#include "pointwise.clh"
