// activation/hardswish: x * clamp(x + 3, 0, 6) / 6.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((a) * FOO_MINIMUM(FOO_MAXIMUM((a) + 3, (ct)0), (ct)6) / 6)
#include "pointwise.clh"
