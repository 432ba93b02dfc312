// activation/mish: x * tanh(softplus(x)).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * tanh(log1p(exp(a))))
#include "pointwise.clh"
