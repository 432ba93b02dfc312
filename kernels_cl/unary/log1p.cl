// unary/log1p: log(1 + a).
#define NIN 1
#define OP(a) log1p(a)
#include "pointwise.clh"
