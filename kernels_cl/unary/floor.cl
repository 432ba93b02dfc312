// unary/floor: round down (integers unchanged).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) floor(a)
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
