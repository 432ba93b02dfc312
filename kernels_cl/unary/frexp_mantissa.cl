// unary/frexp_mantissa: m of a = m * 2^e with |m| in [0.5, 1) (a itself for 0, infinities and NaN).
#define NIN 1
#include "compute.clh"

inline ct foo_mantissa(ct a) {
  int exponent;
  return frexp(a, &exponent);
}

#define OP(a) foo_mantissa(a)
#include "pointwise.clh"
