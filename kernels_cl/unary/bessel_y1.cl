// unary/bessel_y1: the Bessel function of the second kind of order 1, as PyTorch's bessel_y1_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_bessel_y1(a)
#include "pointwise.clh"
