// unary/reciprocal: 1 / a.
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 1
#ifdef COMPUTE_IS_COMPLEX
#define OP(a) foo_cdiv((ct)(1, 0), a)
#else
#define OP(a) 1 / (a)
#endif
#include "pointwise.clh"
