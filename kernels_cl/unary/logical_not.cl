// unary/logical_not: a is zero (a complex value when both parts are).
#define OP_COMPLEX
#define NIN 1
#ifdef COMPUTE_IS_COMPLEX
#define RESULT bool
#endif
#define OP(a) (!FOO_NONZERO(a))
#include "pointwise.clh"
