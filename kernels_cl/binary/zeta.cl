// binary/zeta: the Hurwitz zeta function zeta(a, b), the sum over k >= 0 of (k + b)^-a, as PyTorch's zeta.
#define NIN 2
#include "compute.clh"
#include "special.clh"
#define OP(a, b) foo_zeta(a, b)
#include "pointwise.clh"
