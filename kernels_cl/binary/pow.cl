// binary/pow: a^b (integers by squaring, as PyTorch's powi).
#define NIN 2
#include "compute.clh"

#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) pow(a, b)
#else
#define OP(a, b) foo_powi(a, b)
#endif

#include "pointwise.clh"
