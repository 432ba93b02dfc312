// binary/logaddexp2: log2(2^a + 2^b), a where both are the same infinity.
#define NIN 2
#define OP(a, b) \
  ((isinf(a) && (a) == (b)) ? (a) : fmax(a, b) + log1p(exp2(-fabs((a) - (b)))) * (ct)1.44269504088896340736)
#include "pointwise.clh"
