// activation/silu: x * sigmoid(x).
#define NIN 1
#define OP(a) ((a) / (1 + exp(-(a))))
#include "pointwise.clh"
