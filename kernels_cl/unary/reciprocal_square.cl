// unary/reciprocal_square: 1 / (a * a) (pow(a, -2) on CPU).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) (1 / ((a) * (a)))
#include "pointwise.clh"
