// unary/bessel_j0: the Bessel function of the first kind of order 0, as PyTorch's bessel_j0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_bessel_j0(a)
#include "pointwise.clh"
