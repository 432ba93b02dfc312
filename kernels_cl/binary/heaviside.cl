// binary/heaviside: step function: b at 0.
#define NIN 2
#define OP(a, b) ((a) == 0 ? (b) : (ct)((a) > 0))
#include "pointwise.clh"
