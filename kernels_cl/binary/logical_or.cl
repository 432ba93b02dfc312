// binary/logical_or: a or b (a complex value is true when either part is nonzero).
#define OP_COMPLEX
#define NIN 2
#ifdef COMPUTE_IS_COMPLEX
#define RESULT bool
#endif
#define OP(a, b) (FOO_NONZERO(a) || FOO_NONZERO(b))
#include "pointwise.clh"
