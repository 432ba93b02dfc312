// ternary/lerp: a + c (b - a), computed from the nearer end.
#define NIN 3
#define OP(a, b, c) (fabs(c) < (ct)0.5 ? (a) + (c) * ((b) - (a)) : (b) - ((b) - (a)) * (1 - (c)))
#include "pointwise.clh"
