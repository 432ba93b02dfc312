// activation/sigmoid_backward: a: gradient, b: sigmoid output.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) * (1 - (b)) * (b))
#include "pointwise.clh"
