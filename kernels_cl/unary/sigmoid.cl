// unary/sigmoid: 1 / (1 + e^-a).
#define NIN 1
#define OP(a) foo_sigmoid(a)
#include "pointwise.clh"
