// ternary/where: b where a is set, else c.
#define NIN 3
#define OP(a, b, c) ((a) != 0 ? (b) : (c))
#include "pointwise.clh"
