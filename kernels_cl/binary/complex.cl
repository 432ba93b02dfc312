// binary/complex: the complex value with real part a and imaginary part b.
#define NIN 2
#define RESULT FOO_COMPLEX(COMPUTE)
#define OP(a, b) ((FOO_COMPUTE(RESULT))((a), (b)))
#include "pointwise.clh"
