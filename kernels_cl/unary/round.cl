// unary/round: to the nearest integer, halves to even (rint). In float by adding and subtracting
// 2^23, which rounds |a| < 2^23 so (larger floats are integers already) and vectorises where
// PoCL's rint runs one element at a time.
#define NIN 1
#include "compute.clh"
#if defined(COMPUTE_IS_FLOAT) && !defined(FOO_COMPUTE_IS_DOUBLE)
#define OP_VECTOR_SAFE
#define OP(a) (fabs(a) < 0x1p23f ? copysign((fabs(a) + 0x1p23f) - 0x1p23f, a) : (a))
#elif defined(COMPUTE_IS_FLOAT)
#define OP(a) rint(a)
#else
#define OP(a) (a)
#endif
#include "pointwise.clh"
