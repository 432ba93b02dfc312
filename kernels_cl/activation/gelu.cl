// activation/gelu: x * Phi(x).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * (ct)0.5 * (1 + erf((a) * (ct)0.70710678118654752440)))
#include "pointwise.clh"
