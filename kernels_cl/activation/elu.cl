// activation/elu: s0 (e^(s2 x) - 1) for x <= 0, s1 x above (s0 = alpha scale, s1 = scale, s2 = input_scale).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) <= 0 ? (exp((a) * s2) - 1) * s0 : (a) * s1)
#include "pointwise.clh"
