// activation/elu_backward_result: a: gradient, b: the elu result.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((b) <= 0 ? (a) * s2 * ((b) + s0) : (a) * s1)
#include "pointwise.clh"
