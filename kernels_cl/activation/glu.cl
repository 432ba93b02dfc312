// activation/glu: the first half a gated by the sigmoid of the second half b.
#define NIN 2
#define OP(a, b) ((a) * foo_sigmoid(b))
#include "pointwise.clh"
