// unary/round: round half to even (integers unchanged).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) rint(a)
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
