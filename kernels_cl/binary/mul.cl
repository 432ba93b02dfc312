// binary/mul: a * b (logical and for bool).
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 2
#define OP(a, b) FOO_MUL(a, b)
#include "pointwise.clh"
