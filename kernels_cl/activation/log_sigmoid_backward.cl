// activation/log_sigmoid_backward: a: gradient, b: x.
#define NIN 2
#define OP(a, b) ((a) * (((b) < 0 ? (ct)1 : (ct)0) - ((b) < 0 ? (ct)1 : (ct)-1) * (exp(-fabs(b)) / (1 + exp(-fabs(b))))))
#include "pointwise.clh"
