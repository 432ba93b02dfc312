// unary/sign: -1, 0 or 1 (0 for NaN, as PyTorch).
#define NIN 1
#define OP(a) (ct)(((a) > 0) - ((a) < 0))
#include "pointwise.clh"
