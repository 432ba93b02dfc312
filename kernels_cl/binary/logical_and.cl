// binary/logical_and: a and b.
#define NIN 2
#define OP(a, b) ((a) != 0 && (b) != 0)
#include "pointwise.clh"
