// unary/scaled_modified_bessel_k0: exp(a) K0(a), as PyTorch's scaled_modified_bessel_k0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_scaled_modified_bessel_k0(a)
#include "pointwise.clh"
