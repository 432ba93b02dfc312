// unary/i0: the modified Bessel function of the first kind of order 0, as PyTorch's calc_i0.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_i0(a)
#include "pointwise.clh"
