// binary/igammac: the regularized upper incomplete gamma function Q(a, b) = 1 - P(a, b), as PyTorch's calc_igammac.
#define NIN 2
#include "compute.clh"
#include "special.clh"
#define OP(a, b) foo_igammac(a, b)
#include "pointwise.clh"
