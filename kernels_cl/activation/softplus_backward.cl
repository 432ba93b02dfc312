// activation/softplus_backward: a: gradient, b: x; s0 beta, s1 threshold.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((b) * s0 > s1 ? (a) : (a) * exp((b) * s0) / (exp((b) * s0) + 1))
#include "pointwise.clh"
