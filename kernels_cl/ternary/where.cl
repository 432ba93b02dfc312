// ternary/where: b where a is set, else c.
#define OP_COMPLEX
#define NIN 3
#define OP(a, b, c) (FOO_NONZERO(a) ? (b) : (c))
#include "pointwise.clh"
