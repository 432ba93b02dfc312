// unary/frac: fractional part.
#define NIN 1
#define OP(a) ((a) - trunc(a))
#include "pointwise.clh"
