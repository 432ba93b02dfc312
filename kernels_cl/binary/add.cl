// binary/add: a + alpha * b (alpha is s0; sub is add with -alpha).
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 2
#define OP(a, b) ((a) + FOO_MUL(s0, b))
#include "pointwise.clh"
