// unary/cos: cosine (math.clh's foo_cos, which vectorises in float).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) foo_cos(a)
#define OP_VEC(a) foo_cos_vec(a)
#include "pointwise.clh"
