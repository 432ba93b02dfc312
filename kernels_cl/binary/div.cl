// binary/div: true division.
#define OP_VECTOR_SAFE
#define OP_COMPLEX
#define NIN 2
#define OP(a, b) FOO_DIV(a, b)
#include "pointwise.clh"
