// unary/isnan: a is NaN (bool out; never for integers).
#define NIN 1
#define OP(a) FOO_IS_NAN(a)
#include "pointwise.clh"
