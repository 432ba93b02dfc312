// unary/clamp: min(max(a, s0), s1), NaN kept.
#define NIN 1
#define OP(a) (FOO_IS_NAN(a) ? (a) : ((a) < s0 ? s0 : (a)) > s1 ? s1 : ((a) < s0 ? s0 : (a)))
#include "pointwise.clh"
