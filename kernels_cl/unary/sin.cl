// unary/sin: sine (math.clh's foo_sin, which vectorises in float).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) foo_sin(a)
#define OP_VEC(a) foo_sin_vec(a)
#include "pointwise.clh"
