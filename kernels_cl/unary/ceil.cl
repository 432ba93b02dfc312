// unary/ceil: round up (integers unchanged).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) ceil(a)
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
