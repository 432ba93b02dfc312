// unary/sinc: sin(pi a) / (pi a), 1 at 0.
#define NIN 1
#define OP(a) ((a) == 0 ? (ct)1 : sin(FOO_PI * (a)) / (FOO_PI * (a)))
#include "pointwise.clh"
