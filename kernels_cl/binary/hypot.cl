// binary/hypot: sqrt(a^2 + b^2).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) hypot(a, b)
#include "pointwise.clh"
