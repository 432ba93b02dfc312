// unary/bitwise_not: ~a (logical not for bool).
#define NIN 1
#if defined(COMPUTE_IS_BOOL)
#define OP(a) (!(a))
#else
#define OP(a) (~(a))
#endif
#include "pointwise.clh"
