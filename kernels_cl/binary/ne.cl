// binary/ne: a != b.
#define NIN 2
#define OP(a, b) ((a) != (b))
#include "pointwise.clh"
