// unary/clamp: min(max(a, s0), s1); a NaN element or bound gives NaN (as CPU).
#define NIN 1
#define OP(a) FOO_MINIMUM(FOO_MAXIMUM(a, s0), s1)
#include "pointwise.clh"
