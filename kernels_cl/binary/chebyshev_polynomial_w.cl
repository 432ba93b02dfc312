// binary/chebyshev_polynomial_w: Chebyshev W_n(a), n = (long)b, as PyTorch's chebyshev_polynomial_w_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_chebyshev_polynomial_w(a, foo_polynomial_degree(b))
#include "pointwise.clh"
