// binary/div: true division.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) / (b))
#include "pointwise.clh"
