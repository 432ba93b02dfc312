// binary/nextafter: next representable value after a toward b.
#define NIN 2
#define OP(a, b) nextafter(a, b)
#include "pointwise.clh"
