// unary/abs: |a|.
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) fabs(a)
#else
#define OP(a) ((a) < 0 ? -(a) : (a))
#endif
#include "pointwise.clh"
