// binary/fmod: C's fmod: the sign of a.
#define NIN 2
#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) fmod(a, b)
#else
// NOTE: the host raises on integer division by zero; 0 here only keeps the device from trapping.
#define OP(a, b) ((b) == 0 ? (ct)0 : (a) % (b))
#endif
#include "pointwise.clh"
