// unary/lgamma: log |gamma(a)|.
#define NIN 1
#define OP(a) lgamma(a)
#include "pointwise.clh"
