// binary/remainder: Python's modulo: the sign of b.
#define NIN 2
#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) foo_remainder(a, b)
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 ? (ct)0 : foo_remainder(a, b))
#endif
#include "pointwise.clh"
