// activation/softplus: log(1 + e^(s0 x)) / s0, x above the threshold s1.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * s0 > s1 ? (a) : log1p(exp((a) * s0)) / s0)
#include "pointwise.clh"
