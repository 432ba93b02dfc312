// unary/entr: the entropy term -a log(a): 0 at 0, -inf below.
#define NIN 1
#define OP(a) (isnan(a) ? (a) : (a) > 0 ? -(a) * log(a) : (a) == 0 ? (ct)0 : -(ct)INFINITY)
#include "pointwise.clh"
