// activation/gelu: x * Phi(x), through math.clh's erf.
#define OP_VECTOR_SAFE
#define NIN 1
#define FOO_GELU(a, ERF) ((a) * (ct)0.5 * (1 + ERF((a) * (ct)0.70710678118654752440)))
#define OP(a) FOO_GELU(a, foo_erf)
#define OP_VEC(a) FOO_GELU(a, foo_erf_vec)
#include "pointwise.clh"
