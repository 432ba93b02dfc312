// activation/logit_backward: a: gradient, b: x; s0 eps (< 0: none).
#define NIN 2
#define OP(a, b) (s0 < 0 ? (((b) < 0 || (b) > 1) ? (ct)NAN : ((b) == 0 || (b) == 1) ? (a) * (ct)INFINITY : (a) / ((b) * (1 - (b)))) : (((b) < s0 || (b) > 1 - s0) ? (ct)0 : (a) / ((b) * (1 - (b)))))
#include "pointwise.clh"
