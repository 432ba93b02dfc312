// unary/spherical_bessel_j0: the spherical Bessel function j0, sin(a) / a, as PyTorch's spherical_bessel_j0_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_spherical_bessel_j0(a)
#include "pointwise.clh"
