// unary/modified_bessel_i1: the modified Bessel function I1, as PyTorch's modified_bessel_i1_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_modified_bessel_i1(a)
#include "pointwise.clh"
