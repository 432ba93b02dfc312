// binary/add: a + alpha * b (alpha is s0; sub is add with -alpha).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) + s0 * (b))
#include "pointwise.clh"
