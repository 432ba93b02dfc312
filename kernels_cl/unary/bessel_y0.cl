// unary/bessel_y0: the Bessel function of the second kind of order 0, as PyTorch's bessel_y0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_bessel_y0(a)
#include "pointwise.clh"
