// unary/clamp_min: max(a, s0); a NaN element or bound gives NaN (as CPU).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) FOO_MAXIMUM(a, s0)
#include "pointwise.clh"
