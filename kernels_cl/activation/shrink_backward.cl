// activation/shrink_backward: hardshrink's and softshrink's gradient: g (input 0) where |x| (input 1)
// > lambda (s0), else 0.
#define NIN 2
#define OP(g, x) ((x) >= -s0 && (x) <= s0 ? (ct)0 : (g))
#include "pointwise.clh"
