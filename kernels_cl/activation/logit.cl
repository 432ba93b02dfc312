// activation/logit: log(x / (1 - x)), x clamped to [s0, 1 - s0] unless s0 < 0.
#define NIN 1
#include "compute.clh"
#define FOO_LOGIT_CLAMPED(a, eps) FOO_MINIMUM(FOO_MAXIMUM(a, eps), 1 - (eps))
#define FOO_LOGIT(a, eps) \
  (s0 < 0 ? log((a) / (1 - (a))) : log(FOO_LOGIT_CLAMPED(a, eps) / (1 - FOO_LOGIT_CLAMPED(a, eps))))
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VECTOR_SAFE
#define OP_VEC(a) FOO_LOGIT(a, (ctv)s0)
#endif
#define OP(a) FOO_LOGIT(a, s0)
#include "pointwise.clh"
