// activation/hardshrink: a where |a| > lambda (s0), else 0 (NaN kept).
#define NIN 1
#define OP(a) ((a) >= -s0 && (a) <= s0 ? (ct)0 : (a))
#include "pointwise.clh"
