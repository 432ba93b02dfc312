// activation/log_sigmoid: log(sigmoid(x)).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) (fmin(a, (ct)0) - log1p(exp(-fabs(a))))
#include "pointwise.clh"
