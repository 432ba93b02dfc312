// binary/chebyshev_polynomial_u: Chebyshev U_n(a), n = (long)b, as PyTorch's chebyshev_polynomial_u_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_chebyshev_polynomial_u(a, foo_polynomial_degree(b))
#include "pointwise.clh"
