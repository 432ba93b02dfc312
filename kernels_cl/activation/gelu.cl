// activation/gelu: x * Phi(x), through math.clh's erf.
#define OP_VECTOR_SAFE
#define NIN 1
#include "compute.clh"
#define FOO_GELU(a, ERF) ((a) * (ct)0.5 * (1 + ERF((a) * (ct)0.70710678118654752440)))
#define OP(a) FOO_GELU(a, foo_erf)
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VEC(a) FOO_GELU(a, foo_erf_vec)
#endif
#include "pointwise.clh"
