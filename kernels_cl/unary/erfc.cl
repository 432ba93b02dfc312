// unary/erfc: complementary error function.
#define NIN 1
#define OP(a) erfc(a)
#include "pointwise.clh"
