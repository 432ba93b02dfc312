// binary/masked_fill: s0 where the mask b is set, else a.
#define OP_COMPLEX
#define NIN 2
#define OP(a, b) (FOO_NONZERO(b) ? s0 : (a))
#include "pointwise.clh"
