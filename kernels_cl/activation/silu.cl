// activation/silu: x * sigmoid(x).
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) / (1 + exp(-(a))))
#include "pointwise.clh"
