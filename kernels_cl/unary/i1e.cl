// unary/i1e: i1 scaled by exp(-|a|), as PyTorch's calc_i1e.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_i1e(a)
#include "pointwise.clh"
