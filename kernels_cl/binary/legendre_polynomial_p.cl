// binary/legendre_polynomial_p: Legendre P_n(a), n = (long)b, as PyTorch's legendre_polynomial_p_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_legendre_polynomial_p(a, foo_polynomial_degree(b))
#include "pointwise.clh"
