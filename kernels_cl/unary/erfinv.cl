// unary/erfinv: inverse error function.
#define NIN 1
#define OP(a) foo_erfinv(a)
#include "pointwise.clh"
