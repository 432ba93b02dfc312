// unary/nan_to_num: NaN, +inf and -inf replaced by s0, s1, s2 (integers unchanged).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) (isnan(a) ? s0 : (a) == (ct)INFINITY ? s1 : (a) == -(ct)INFINITY ? s2 : (a))
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
