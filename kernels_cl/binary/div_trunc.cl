// binary/div_trunc: division rounded toward zero.
#define NIN 2
#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) trunc((a) / (b))
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 ? (ct)0 : FOO_BY_MINUS_ONE(b) ? FOO_NEGATED(a) : (a) / (b))
#endif
#include "pointwise.clh"
