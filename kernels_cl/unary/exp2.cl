// unary/exp2: 2^a.
#define NIN 1
#define OP(a) exp2(a)
#include "pointwise.clh"
