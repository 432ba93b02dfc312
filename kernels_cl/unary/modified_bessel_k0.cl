// unary/modified_bessel_k0: the modified Bessel function K0, as PyTorch's modified_bessel_k0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_modified_bessel_k0(a)
#include "pointwise.clh"
