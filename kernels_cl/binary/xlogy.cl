// binary/xlogy: a * log(b), 0 where a is 0.
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) (isnan(b) ? (b) : (a) == 0 ? (ct)0 : (a) * log(b))
#include "pointwise.clh"
