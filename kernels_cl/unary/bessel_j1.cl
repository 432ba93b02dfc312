// unary/bessel_j1: the Bessel function of the first kind of order 1, as PyTorch's bessel_j1_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_bessel_j1(a)
#include "pointwise.clh"
