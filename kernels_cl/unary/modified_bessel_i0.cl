// unary/modified_bessel_i0: the modified Bessel function I0, as PyTorch's modified_bessel_i0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_modified_bessel_i0(a)
#include "pointwise.clh"
