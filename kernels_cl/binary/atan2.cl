// binary/atan2: atan2(a, b).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) atan2(a, b)
#include "pointwise.clh"
