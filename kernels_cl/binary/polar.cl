// binary/polar: the complex value of magnitude a and angle b.
#define NIN 2
#define RESULT FOO_COMPLEX(COMPUTE)
#define OP(a, b) ((FOO_COMPUTE(RESULT))((a) * cos(b), (a) * sin(b)))
#include "pointwise.clh"
