// binary/right_shift: a >> b, sign-filled when b is negative or too large (as PyTorch).
#define NIN 2
#define FOO_BITS ((ct)(sizeof(ct) * 8))
#define OP(a, b) (((b) < 0 || (b) >= FOO_BITS) ? (ct)((a) < 0 ? -1 : 0) : (ct)((a) >> (b)))
#include "pointwise.clh"
