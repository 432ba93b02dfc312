// unary/signbit: sign bit set (bool out).
#define NIN 1
#ifdef COMPUTE_IS_FLOAT
#define OP(a) (signbit(a) != 0)
#else
#define OP(a) ((a) < 0)
#endif
#include "pointwise.clh"
