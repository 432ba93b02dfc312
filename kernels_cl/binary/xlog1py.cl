// binary/xlog1py: a * log1p(b), 0 where a is 0, NaN where b is.
#define NIN 2
#define OP(a, b) (isnan(b) ? (ct)NAN : (a) == 0 ? (ct)0 : (a) * log1p(b))
#include "pointwise.clh"
