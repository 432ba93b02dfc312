// unary/erfcx: the scaled complementary error function exp(a^2) erfc(a), as PyTorch's calc_erfcx.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_erfcx(a)
#include "pointwise.clh"
