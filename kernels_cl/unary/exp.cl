// unary/exp: e^a.
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 1
#ifdef COMPUTE_IS_COMPLEX
#define OP(a) foo_cexp(a)
#else
#define OP(a) exp(a)
#endif
#include "pointwise.clh"
