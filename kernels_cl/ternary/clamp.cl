// ternary/clamp: min(max(a, b), c); a NaN element or bound gives NaN (as CPU).
#define NIN 3
#define OP(a, b, c) FOO_MINIMUM(FOO_MAXIMUM(a, b), c)
#include "pointwise.clh"
