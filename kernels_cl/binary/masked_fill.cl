// binary/masked_fill: s0 where the mask b is set, else a.
#define NIN 2
#define OP(a, b) ((b) != 0 ? s0 : (a))
#include "pointwise.clh"
