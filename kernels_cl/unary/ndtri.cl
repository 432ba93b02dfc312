// unary/ndtri: the inverse of the standard normal distribution function, as PyTorch's calc_ndtri
// (Cephes): a rational approximation around 1/2, two in z = sqrt(-2 log y) in the tails.
#define NIN 1
#include "compute.clh"
#include "special.clh"

#define OP(a) foo_ndtri(a)
#include "pointwise.clh"
