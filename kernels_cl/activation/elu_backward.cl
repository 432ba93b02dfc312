// activation/elu_backward: a: gradient, b: x; s0 alpha scale, s1 scale, s2 input_scale.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((b) <= 0 ? (a) * s2 * s0 * exp((b) * s2) : (a) * s1)
#include "pointwise.clh"
