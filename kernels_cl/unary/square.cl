// unary/square: a * a (pow(a, 2) on CPU).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * (a))
#include "pointwise.clh"
