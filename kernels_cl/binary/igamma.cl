// binary/igamma: the regularized lower incomplete gamma function P(a, b), as PyTorch's calc_igamma.
#define NIN 2
#include "compute.clh"
#include "special.clh"
#define OP(a, b) foo_igamma(a, b)
#include "pointwise.clh"
