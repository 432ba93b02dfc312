// activation/silu_backward: a: gradient, b: x.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) * (1 / (1 + exp(-(b)))) * (1 + (b) * (1 - 1 / (1 + exp(-(b))))))
#include "pointwise.clh"
