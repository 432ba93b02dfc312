// unary/round_decimals: round half to even at 10^-decimals (s0 = 10^|decimals|, s1 = sign of decimals).
#define NIN 1
#define OP(a) (s1 < 0 ? rint((a) / s0) * s0 : rint((a) * s0) / s0)
#include "pointwise.clh"
