// binary/clamp_min: max(a, b); a NaN element or bound gives NaN (as CPU).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) FOO_MAXIMUM(a, b)
#include "pointwise.clh"
