// binary/logaddexp: log(e^a + e^b).
#define OP_VECTOR_SAFE
#define NIN 2
#define OP(a, b) ((isinf(a) && (a) == (b)) ? (a) : fmax(a, b) + log1p(exp(-fabs((a) - (b)))))
#include "pointwise.clh"
