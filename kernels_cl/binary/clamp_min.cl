// binary/clamp_min: max(a, b), NaN kept.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) (FOO_IS_NAN(a) ? (a) : (a) < (b) ? (b) : (a))
#include "pointwise.clh"
