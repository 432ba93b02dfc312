// unary/cube: a * a * a (pow(a, 3) on CPU).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * (a) * (a))
#include "pointwise.clh"
