// unary/nan_to_num: NaN, +inf and -inf replaced by s0, s1, s2 (floating dtypes only).
#define NIN 1
#define OP(a) (isnan(a) ? s0 : (a) == (ct)INFINITY ? s1 : (a) == -(ct)INFINITY ? s2 : (a))
#include "pointwise.clh"
