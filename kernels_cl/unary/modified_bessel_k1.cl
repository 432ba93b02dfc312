// unary/modified_bessel_k1: the modified Bessel function K1, as PyTorch's modified_bessel_k1_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_modified_bessel_k1(a)
#include "pointwise.clh"
