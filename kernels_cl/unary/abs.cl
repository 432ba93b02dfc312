// unary/abs: |a| (real for complex values).
#define OP_COMPLEX
#define NIN 1
#if defined(COMPUTE_IS_COMPLEX)
#define RESULT FOO_REAL(COMPUTE)
#define OP(a) hypot((a).x, (a).y)
#elif defined(COMPUTE_IS_FLOAT)
#define OP(a) fabs(a)
#else
#define OP(a) ((a) < 0 ? -(a) : (a))
#endif
#include "pointwise.clh"
