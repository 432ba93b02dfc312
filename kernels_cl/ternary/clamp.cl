// ternary/clamp: min(max(a, b), c), NaN kept.
#define NIN 3
#define OP(a, b, c) (FOO_IS_NAN(a) ? (a) : FOO_MINIMUM(FOO_MAXIMUM(a, b), c))
#include "pointwise.clh"
