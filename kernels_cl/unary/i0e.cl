// unary/i0e: i0 scaled by exp(-|a|), as PyTorch's calc_i0e.
#define NIN 1
#include "compute.clh"
#include "special.clh"
#define OP(a) foo_i0e(a)
#include "pointwise.clh"
