// unary/asin: arcsine.
#define NIN 1
#define OP(a) asin(a)
#include "pointwise.clh"
