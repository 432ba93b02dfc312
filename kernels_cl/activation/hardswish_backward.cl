// activation/hardswish_backward: a: gradient, b: x.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((b) <= -3 ? (ct)0 : (b) < 3 ? (a) * ((b) / 3 + (ct)0.5) : (a))
#include "pointwise.clh"
