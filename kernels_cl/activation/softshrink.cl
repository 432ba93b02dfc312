// activation/softshrink: a - lambda above lambda (s0), a + lambda below -lambda, else a * 0 (NaN kept).
#define NIN 1
#define OP(a) ((a) > s0 ? (a) - s0 : (a) < -s0 ? (a) + s0 : (a) * 0)
#include "pointwise.clh"
