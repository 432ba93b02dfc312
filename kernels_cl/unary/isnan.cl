// unary/isnan: a is NaN (bool out; never for integers; either part for complex values).
#define OP_COMPLEX
#define NIN 1
#define RESULT bool
#ifdef COMPUTE_IS_COMPLEX
#define OP(a) (isnan((a).x) || isnan((a).y))
#else
#define OP(a) FOO_IS_NAN(a)
#endif
#include "pointwise.clh"
