// unary/clamp_min: max(a, s0), NaN kept.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) (FOO_IS_NAN(a) ? (a) : (a) < s0 ? s0 : (a))
#include "pointwise.clh"
