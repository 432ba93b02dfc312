// unary/digamma: the logarithmic derivative of the gamma function, as PyTorch's calc_digamma.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_digamma(a)
#include "pointwise.clh"
