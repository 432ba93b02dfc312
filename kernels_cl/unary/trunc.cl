// unary/trunc: round toward zero (integers unchanged).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) trunc(a)
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
