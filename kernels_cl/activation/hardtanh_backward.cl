// activation/hardtanh_backward: a: gradient, b: x; s0, s1 the bounds.
#define NIN 2
#define OP(a, b) ((b) <= s0 || (b) >= s1 ? (ct)0 : (a))
#include "pointwise.clh"
