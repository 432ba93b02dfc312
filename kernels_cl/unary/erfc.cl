// unary/erfc: complementary error function.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) erfc(a)
#include "pointwise.clh"
