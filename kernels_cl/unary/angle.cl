// unary/angle: the argument of a complex value; pi for negative reals, 0 for the rest (NaN kept).
#define OP_COMPLEX
#define NIN 1
#ifdef COMPUTE_IS_COMPLEX
#define RESULT FOO_REAL(COMPUTE)
#define OP(a) atan2((a).y, (a).x)
#else
#define OP(a) (isnan(a) ? (a) : (a) < 0 ? FOO_PI : (ct)0)
#endif
#include "pointwise.clh"
