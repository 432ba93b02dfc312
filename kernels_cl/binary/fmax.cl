// binary/fmax: larger of a and b, NaN ignored.
#define NIN 2
#ifdef COMPUTE_IS_FLOAT
#define OP(a, b) fmax(a, b)
#else
#define OP(a, b) ((a) > (b) ? (a) : (b))
#endif
#include "pointwise.clh"
