// binary/copysign: |a| with the sign of b.
#define NIN 2
#define OP(a, b) copysign(a, b)
#include "pointwise.clh"
