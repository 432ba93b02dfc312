// binary/shifted_chebyshev_polynomial_v: V_n(2a - 1), n = (long)b, as PyTorch's shifted_chebyshev_polynomial_v_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_shifted_chebyshev_polynomial_v(a, foo_polynomial_degree(b))
#include "pointwise.clh"
