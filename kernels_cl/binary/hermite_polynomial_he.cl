// binary/hermite_polynomial_he: Hermite He_n(a), n = (long)b, as PyTorch's hermite_polynomial_he_forward.
#define NIN 2
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a, b) foo_hermite_polynomial_he(a, foo_polynomial_degree(b))
#include "pointwise.clh"
