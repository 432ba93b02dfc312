// activation/threshold: s1 where a <= s0, else b (threshold_backward: a is x, b the gradient).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) <= s0 ? s1 : (b))
#include "pointwise.clh"
