// unary/pow: a^s0, the scalar exponent s0 (integers by squaring, as PyTorch's powi).
#define NIN 1
#include "compute.clh"

#ifdef COMPUTE_IS_FLOAT
#define OP(a) pow(a, s0)
#else
#define OP(a) foo_powi(a, s0)
#endif

#include "pointwise.clh"
