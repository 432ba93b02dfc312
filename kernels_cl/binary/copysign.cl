// binary/copysign: |a| with the sign of b.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) copysign(a, b)
#include "pointwise.clh"
