// unary/pow: a^s0, the scalar exponent s0 (integers by squaring, as PyTorch's powi).
#define NIN 1
#include "compute.clh"

#ifdef COMPUTE_IS_FLOAT
#define OP(a) foo_pow(a, s0)
#ifdef FOO_HAS_POW_VEC
#define OP_VECTOR_SAFE
#define OP_VEC(a) foo_pow_vec(a, (ctv)s0)
#endif
#else
#define OP(a) foo_powi(a, s0)
#endif

#include "pointwise.clh"
