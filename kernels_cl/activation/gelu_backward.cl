// activation/gelu_backward: a: gradient, b: x.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((a) * ((ct)0.5 * (1 + erf((b) * (ct)0.70710678118654752440)) + \
                               (b) * exp((ct)-0.5 * (b) * (b)) * (ct)0.39894228040143267794))
#include "pointwise.clh"
