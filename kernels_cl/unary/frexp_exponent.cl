// unary/frexp_exponent: e of a = m * 2^e with |m| in [0.5, 1), as int32 (0 for 0).
#define NIN 1
#include "compute.clh"

inline int foo_exponent(ct a) {
  int exponent;
  frexp(a, &exponent);
  return exponent;
}

#define RESULT int32
#define OP(a) foo_exponent(a)
#include "pointwise.clh"
