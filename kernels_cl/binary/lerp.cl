// binary/lerp: a + s0 (b - a), computed from the nearer end.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) (fabs(s0) < (ct)0.5 ? (a) + s0 * ((b) - (a)) : (b) - ((b) - (a)) * (1 - s0))
#include "pointwise.clh"
