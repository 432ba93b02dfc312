// activation/gelu_backward: a: gradient, b: x; through math.clh's erf.
#define OP_VECTOR_SAFE
#define NIN 2
#include "compute.clh"
#define FOO_GELU_BACKWARD(a, b, ERF)                                  \
  ((a) * ((ct)0.5 * (1 + ERF((b) * (ct)0.70710678118654752440)) +     \
          (b) * exp((ct)-0.5 * (b) * (b)) * (ct)0.39894228040143267794))
#define OP(a, b) FOO_GELU_BACKWARD(a, b, foo_erf)
#ifndef FOO_COMPUTE_IS_DOUBLE
#define OP_VEC(a, b) FOO_GELU_BACKWARD(a, b, foo_erf_vec)
#endif
#include "pointwise.clh"
