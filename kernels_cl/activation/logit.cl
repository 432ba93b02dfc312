// activation/logit: log(x / (1 - x)), x clamped to [s0, 1 - s0] unless s0 < 0.
#define NIN 1
#define OP(a) (s0 < 0 ? log((a) / (1 - (a))) : log(FOO_MINIMUM(FOO_MAXIMUM(a, s0), 1 - s0) / (1 - FOO_MINIMUM(FOO_MAXIMUM(a, s0), 1 - s0))))
#include "pointwise.clh"
