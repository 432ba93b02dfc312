// binary/pow: a^b (integers by squaring, as PyTorch's powi).
#define NIN 2
#include "compute.clh"

#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) foo_pow(a, b)
#ifdef FOO_HAS_POW_VEC
#define OP_VECTOR_SAFE
#define OP_VEC(a, b) foo_pow_vec((ctv)(a), (ctv)(b))
#endif
#else
#define OP(a, b) foo_powi(a, b)
#endif

#include "pointwise.clh"
