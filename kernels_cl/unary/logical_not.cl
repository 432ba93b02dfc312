// unary/logical_not: a == 0.
#define NIN 1
#define OP(a) ((a) == 0)
#include "pointwise.clh"
