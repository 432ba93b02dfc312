// activation/silu_backward: a: gradient, b: x.
#define NIN 2
#define OP(a, b) ((a) * foo_sigmoid(b) * (1 + (b) * (1 - foo_sigmoid(b))))
#include "pointwise.clh"
