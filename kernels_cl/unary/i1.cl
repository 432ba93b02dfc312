// unary/i1: the modified Bessel function of the first kind of order 1, as PyTorch's calc_i1.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_i1(a)
#include "pointwise.clh"
