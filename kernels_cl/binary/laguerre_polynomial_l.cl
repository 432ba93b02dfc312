// binary/laguerre_polynomial_l: Laguerre L_n(a), n = (long)b, as PyTorch's laguerre_polynomial_l_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_laguerre_polynomial_l(a, foo_polynomial_degree(b))
#include "pointwise.clh"
