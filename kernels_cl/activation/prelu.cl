// activation/prelu: x (input 0) where positive, else x times its weight w (input 1).
#define NIN 2
#define OP(x, w) ((x) > 0 ? (x) : (w) * (x))
#include "pointwise.clh"
