// unary/scaled_modified_bessel_k1: exp(a) K1(a), as PyTorch's scaled_modified_bessel_k1_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_scaled_modified_bessel_k1(a)
#include "pointwise.clh"
