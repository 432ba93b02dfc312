// binary/eq: a == b (complex values when both parts are equal).
#define OP_COMPLEX
#define NIN 2
#ifdef COMPUTE_IS_COMPLEX
#define RESULT bool
#define OP(a, b) ((a).x == (b).x && (a).y == (b).y)
#else
#define OP(a, b) ((a) == (b))
#endif
#include "pointwise.clh"
