// unary/isneginf: a == -inf.
#define NIN 1
#define OP(a) ((a) == -(ct)INFINITY)
#include "pointwise.clh"
