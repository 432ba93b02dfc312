// unary/log: natural logarithm.
#define NIN 1
#define OP(a) log(a)
#include "pointwise.clh"
