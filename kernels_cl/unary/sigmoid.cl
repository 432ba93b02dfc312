// unary/sigmoid: 1 / (1 + e^-a).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) (1 / (1 + exp(-(a))))
#include "pointwise.clh"
