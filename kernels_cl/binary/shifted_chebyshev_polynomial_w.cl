// binary/shifted_chebyshev_polynomial_w: W_n(2a - 1), n = (long)b, as PyTorch's shifted_chebyshev_polynomial_w_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_shifted_chebyshev_polynomial_w(a, foo_polynomial_degree(b))
#include "pointwise.clh"
