// binary/chebyshev_polynomial_v: Chebyshev V_n(a), n = (long)b, as PyTorch's chebyshev_polynomial_v_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_chebyshev_polynomial_v(a, foo_polynomial_degree(b))
#include "pointwise.clh"
