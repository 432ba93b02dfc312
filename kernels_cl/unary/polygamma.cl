// unary/polygamma: the n-th derivative of digamma, n = s0 (an integer >= 0), as PyTorch's polygamma:
// digamma, trigamma, then calc_polygamma's (-1)^(n+1) n! zeta(n + 1, a).
#define NIN 1
#include "compute.clh"
#include "special.clh"

#define OP(a) (s0 == 0 ? foo_digamma(a) : s0 == 1 ? foo_trigamma(a) : foo_polygamma(s0, a))
#include "pointwise.clh"
