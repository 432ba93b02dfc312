// unary/conj: the complex conjugate.
#define OP_COMPLEX
#define NIN 1
#define OP(a) ((ct)((a).x, -(a).y))
#include "pointwise.clh"
