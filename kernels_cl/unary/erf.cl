// unary/erf: error function (math.clh's foo_erf, which vectorises in float).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) foo_erf(a)
#define OP_VEC(a) foo_erf_vec(a)
#include "pointwise.clh"
