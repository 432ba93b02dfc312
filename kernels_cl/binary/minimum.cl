// binary/minimum: smaller of a and b, NaN propagated.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) FOO_MINIMUM(a, b)
#include "pointwise.clh"
