// binary/shifted_chebyshev_polynomial_u: U_n(2a - 1), n = (long)b, as PyTorch's shifted_chebyshev_polynomial_u_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_shifted_chebyshev_polynomial_u(a, foo_polynomial_degree(b))
#include "pointwise.clh"
