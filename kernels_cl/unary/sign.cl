// unary/sign: -1, 0 or 1 (0 for NaN, as PyTorch); for complex values (sgn), a / |a| (0 for 0).
#define OP_COMPLEX
#define NIN 1
#ifdef COMPUTE_IS_COMPLEX
#define OP(a) foo_csgn(a)
#else
#define OP(a) (ct)(((a) > 0) - ((a) < 0))
#endif
#include "pointwise.clh"
